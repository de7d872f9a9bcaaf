package markdown

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// The books under testdata/layouts are written for these tests, one per
// layout: mkdocs (mkdocs.yml nav with a docs_dir, admonitions, tabs,
// blocks, a snippet, setext headings), jupyterbook (_toc.yml parts, MyST
// directives and roles, a notebook), quarto (_quarto.yml chapters, parts
// and appendices, chunks, callouts, citations, cross-references),
// bookdown (_bookdown.yml rmd_files, hidden chunks, text references),
// gitbook (SUMMARY.md with part headings, a comment and a stray line),
// jekyll (_config.yml collections with a permalink, a partial folder),
// jupyterbook2 (myst.yml project.toc and project.title, repository files
// it does not list) and hugo (hugo.toml title, content/ sections with
// _index.md and weights, a page bundle, shortcodes) and mkdocs-literate
// (nav entries naming a folder, literate-nav with nav_file: README.md),
// bookdown-parts ((PART) and (APPENDIX) headings), sphinx-myst (conf.py
// project, {toctree} with captions in index.md), sphinx-course (conf.py
// substitutions naming variables, globbed toctrees with YAML options, a
// home page with no heading and an eval-rst toctree); jekyll has an order
// list.
// Each one's golden listing holds the course name, the modules and
// chapters in order with titles and page paths, the warnings, and every
// chunk's text: what a student is quoted.

func layoutListing(t *testing.T, dir string) string {
	t.Helper()
	var warnings []string
	opts := DefaultOptions()
	opts.Warn = func(p string, err error) { warnings = append(warnings, p+": "+err.Error()) }
	var fsys fs.FS = os.DirFS(dir)
	title := ReadLayoutTitle(dir)
	if _, err := os.Stat(filepath.Join(dir, "docusaurus.config.js")); err == nil {
		// A Docusaurus site: the book is its docs folder, the sidebar and
		// the title beside it.
		docs := filepath.Join(dir, "docs")
		snap, err := ReadDir(t.Context(), docs, opts)
		if err != nil {
			t.Fatal(err)
		}
		fsys, title = BringSiteConfig(snap, docs), ReadSiteTitle(dir)
	}
	tree, err := ReadTree(t.Context(), fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	quiet := DefaultOptions()
	_, chunks, err := Load(t.Context(), fsys, quiet)
	if err != nil {
		t.Fatal(err)
	}
	checkChunks(t, chunks)
	var b strings.Builder
	if title == "" {
		title = RootPageTitle(fsys)
	}
	fmt.Fprintf(&b, "course: %s\n", title)
	for _, c := range tree.Chapters {
		if c.ModuleID == "" {
			fmt.Fprintf(&b, "chapter %s %q /docs/%s\n", c.File, c.Title, c.Route)
		}
	}
	for _, m := range tree.Modules {
		fmt.Fprintf(&b, "module %s %q\n", m.ID, m.Title)
		for _, c := range m.Chapters {
			fmt.Fprintf(&b, "  chapter %s %q /docs/%s\n", c.File, c.Title, c.Route)
		}
	}
	for _, w := range warnings {
		fmt.Fprintf(&b, "warning %s\n", w)
	}
	for _, c := range chunks {
		fmt.Fprintf(&b, "=== %s #%d section=%s anchor=%s\n%s\n", c.ChapterPath, c.ChunkIndex, c.SectionHeading, c.Anchor, c.Text)
	}
	return b.String()
}

func TestLayoutFixtures(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "layouts", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			got := layoutListing(t, dir)
			golden := dir + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if got != string(want) {
				t.Errorf("listing differs from %s (run with -update and review the diff):\n%s", golden, got)
			}
			// Code blocks show markup as written: a page that teaches
			// the syntax quotes it there.
			prose := outsideFences(got)
			for _, raw := range rawMarkup {
				if i := strings.Index(prose, raw); i >= 0 {
					t.Errorf("raw markup %q quoted: …%s…", raw, prose[max(0, i-60):min(len(prose), i+60)])
				}
			}
			for _, line := range strings.Split(got, "\n") {
				if raw := rawLine(line); raw != "" {
					t.Errorf("raw markup %q quoted: %q", raw, line)
				}
			}
		})
	}
}

// outsideFences is a listing without its fenced code blocks' lines (a
// fence closes on a run of its character at least as long); a raw
// directive fence (```{note}) stays, to be caught.
func outsideFences(listing string) string {
	var b strings.Builder
	fence := ""
	for _, line := range strings.Split(listing, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		// A directive's fence left as written is raw markup, not code.
		if m := fenceRun.FindString(t); m != "" && !strings.HasPrefix(strings.TrimSpace(t[len(m):]), "{") {
			fence = m
			continue
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

var fenceRun = regexp.MustCompile("^(`{3,}|~{3,})")

// rawMarkup is dialect markup that a quote must never show.
var rawMarkup = []string{"!!! ", "??? ", "=== \"", "/// ", "{!>", "{* ", "```{", ":::{", "::: {", "{{<", "`r ",
	"\\@ref(", "(ref:", "{doc}`", "{eq}`", "{cite}`", "{term}`", "{math}`", "{numref}`",
	":label:", ":class:", ":tags:", "#| ", "+++", ")=\n", "{/*",
	"{% ", "{{%", "[^v]", "{#tbl-", "block2", "(PART)", "(APPENDIX)", "::: soilkit", "mkdocs-click", "1 2 2 2"}

func readWarned(t *testing.T, book fstest.MapFS) (*Tree, []string) {
	t.Helper()
	var warnings []string
	opts := DefaultOptions()
	opts.Warn = func(p string, err error) { warnings = append(warnings, p+": "+err.Error()) }
	tree, err := ReadTree(t.Context(), book, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tree, warnings
}

func chapterFiles(tree *Tree) []string {
	var out []string
	for _, c := range tree.Chapters {
		out = append(out, c.File+" /docs/"+c.Route)
	}
	return out
}

// A Jekyll site copied without its _config.yml is known by its pages'
// front matter: its "_" folders with Jekyll pages are read, as
// /collection/path; in a Docusaurus book a "_" folder is a partial, left
// out with a warning.
func TestUnderscoreFolders(t *testing.T) {
	page := func(fm, text string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\n" + fm + "\n---\n\n" + text + "\n")}
	}
	tree, warnings := readWarned(t, fstest.MapFS{
		"guide.md":          page("layout: base\ntitle: Guide", "The guide."),
		"_u-rel/nsubj.md":   page("layout: relation\ntitle: nsubj", "A nominal subject."),
		"_u-rel/obj.md":     page("layout: relation\ntitle: obj", "An object."),
		"_notes/scratch.md": page("title: Scratch", "Not a Jekyll page."),
	})
	want := []string{"guide.md /docs/guide", "_u-rel/nsubj.md /docs/u-rel/nsubj", "_u-rel/obj.md /docs/u-rel/obj"}
	if got := chapterFiles(tree); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("chapters %q, want %q", got, want)
	}
	if len(tree.Modules) != 1 || tree.Modules[0].Title != "u-rel" {
		t.Errorf("modules %+v, want the collection u-rel", tree.Modules)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "_notes: skipped") {
		t.Errorf("warnings %q, want one for _notes", warnings)
	}

	_, warnings = readWarned(t, fstest.MapFS{
		"intro.md":             {Data: []byte("# Intro\n\nText.\n")},
		"_partials/snippet.md": {Data: []byte("Shared text.\n")},
		"sidebars.js":          {Data: []byte("module.exports = {docs: [intro()]};\n")},
	})
	if got := strings.Join(warnings, "\n"); !strings.Contains(got, "_partials: skipped: a folder whose name starts with \"_\" holds partials in a Docusaurus book") ||
		!strings.Contains(got, "sidebars.js: not read, the order comes from folders") {
		t.Errorf("warnings %q, want the partial folder and the unreadable sidebar named", got)
	}
}

// An mdBook SUMMARY.md with a line the tutor cannot read keeps its
// table of contents: the line is skipped with a warning naming it.
func TestSummaryUnknownLinesWarn(t *testing.T) {
	tree, warnings := readWarned(t, fstest.MapFS{
		"src/SUMMARY.md": {Data: []byte("# Summary\n\n<!-- TODO: Define Sections -->\n\n- [Intro](intro.md)\n- [Design](design.md)\n\nStray prose.\n")},
		"src/intro.md":   {Data: []byte("# Intro\n\nText.\n")},
		"src/design.md":  {Data: []byte("# Design\n\nText.\n")},
	})
	want := []string{"src/intro.md /docs/intro", "src/design.md /docs/design"}
	if got := chapterFiles(tree); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("chapters %q, want %q", got, want)
	}
	if got := strings.Join(warnings, "\n"); got != "src/SUMMARY.md: line 8: skipped, not a link to a page" {
		t.Errorf("warnings %q", got)
	}
}

// Underlined (setext) headings are sections, as # headings are.
func TestSetextHeadingsAreSections(t *testing.T) {
	book := fstest.MapFS{"guide.md": {Data: []byte("Active Widgets\n==============\n\nAn introduction.\n\n" +
		"--------------------------------\n\nWhat is a widget?\n-----------------\n\n" + strings.Repeat("A widget is a part of a window. ", 60) +
		"\n\nMaking widgets\n--------------\n\n" + strings.Repeat("Call the factory to make one. ", 60) + "\n")}}
	_, chunks, err := Load(t.Context(), book, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var sections []string
	for _, c := range chunks {
		sections = append(sections, headingTexts(c.Headings)...)
	}
	if got := strings.Join(sections, "|"); !strings.Contains(got, "What is a widget?") || !strings.Contains(got, "Making widgets") {
		t.Errorf("sections %q, want the underlined headings", got)
	}
	if chunks[0].ChapterTitle != "Active Widgets" {
		t.Errorf("chapter title %q", chunks[0].ChapterTitle)
	}
}

// rawCitation is a pandoc citation, [@key] or [see @a; @b].
var rawCitation = regexp.MustCompile(`\[(?:[^\[\]]*[\s;-])?@\w[^\[\]]*\]`)

// rawLine finds markup that is raw only in some places: a citation (not
// a link's text, "[@name](url)") and a heading's attributes.
func rawLine(line string) string {
	line = strings.TrimSpace(line)
	for _, m := range rawCitation.FindAllStringIndex(line, -1) {
		if m[1] == len(line) || line[m[1]] != '(' && line[m[1]] != '[' {
			return "[@…]"
		}
	}
	if strings.HasPrefix(line, "#") && (strings.HasSuffix(line, "{-}") || strings.Contains(line, "{.unnumbered")) {
		return "{-}"
	}
	return ""
}

// A sidebar written as categories by label, {docs: {Label: [...]}}, is
// read too; nested categories belong to the top one's module.
func TestSidebarShorthand(t *testing.T) {
	page := func(title string) *fstest.MapFile { return &fstest.MapFile{Data: []byte("# " + title + "\n\nText.\n")} }
	tree, warnings := readWarned(t, fstest.MapFS{
		"sidebars.js": {Data: []byte(`module.exports = {
  docs: {
    Start: ['start/why', 'start/install'],
    'Using it': ['use/index', {type: 'category', label: 'Deeper', collapsed: true, items: ['use/deep/b', 'use/deep/a']}],
    Questions: ['faq'],
  },
};`)},
		"start/install.md": page("Install"), "start/why.md": page("Why"), "use/index.md": page("Use"),
		"use/deep/a.md": page("A"), "use/deep/b.md": page("B"), "faq.md": page("FAQ"),
	})
	want := []string{"start/why.md /docs/start/why", "start/install.md /docs/start/install", "use/index.md /docs/use",
		"use/deep/b.md /docs/use/deep/b", "use/deep/a.md /docs/use/deep/a", "faq.md /docs/faq"}
	if got := chapterFiles(tree); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("chapters %q, want %q", got, want)
	}
	var titles []string
	for _, m := range tree.Modules {
		titles = append(titles, m.Title)
	}
	if got := strings.Join(titles, "|"); got != "Start|Using it|Questions" {
		t.Errorf("modules %q", got)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings %q", warnings)
	}
}

// A SUMMARY.md that links to a page among as much prose is a page, and
// the warning says why it is no table of contents.
func TestSummaryThatIsAPageWarns(t *testing.T) {
	tree, warnings := readWarned(t, fstest.MapFS{
		"SUMMARY.md": {Data: []byte("# Summary of the week\n\n- [The intro](intro.md)\n\nThen we talked.\n\nAnd we left.\n")},
		"intro.md":   {Data: []byte("# Intro\n\nText.\n")},
	})
	if len(tree.Chapters) != 2 {
		t.Errorf("chapters %q, want SUMMARY.md read as a page", chapterFiles(tree))
	}
	if got := strings.Join(warnings, "\n"); !strings.HasPrefix(got, "SUMMARY.md: read as a page, not a table of contents: 2 of its blocks are not links (line 5: skipped") {
		t.Errorf("warnings %q", got)
	}
}

// `--docs` may name an MkDocs site's docs folder: its mkdocs.yml, above
// it, orders the book when its docs_dir is that folder.
func TestMkDocsConfigAboveTheDocsFolder(t *testing.T) {
	for _, tt := range []struct {
		docsDir string
		want    string
	}{
		{"", "b.md|a.md"},      // docs_dir defaults to docs
		{"docs", "b.md|a.md"},  // named
		{"pages", "a.md|b.md"}, // another folder's: not this book's order
	} {
		site := t.TempDir()
		conf := "site_name: S\nnav:\n  - b.md\n  - a.md\n"
		if tt.docsDir != "" {
			conf += "docs_dir: " + tt.docsDir + "\n"
		}
		for name, body := range map[string]string{"mkdocs.yml": conf, "docs/a.md": "# A\n\nText.\n", "docs/b.md": "# B\n\nText.\n"} {
			p := filepath.Join(site, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		docs := filepath.Join(site, "docs")
		snap, err := ReadDir(t.Context(), docs, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		tree, err := ReadTree(t.Context(), BringSiteConfig(snap, docs), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range tree.Chapters {
			got = append(got, c.File)
		}
		if strings.Join(got, "|") != tt.want {
			t.Errorf("docs_dir %q: chapters %q, want %s", tt.docsDir, got, tt.want)
		}
	}
}

// A Sphinx book in reStructuredText is refused, saying so; .rst pages
// beside Markdown ones are left out with one warning.
func TestRestructuredTextRefused(t *testing.T) {
	rst := fstest.MapFS{
		"conf.py":     {Data: []byte("project = 'Knots'\n")},
		"index.rst":   {Data: []byte("Knots\n=====\n\n.. toctree::\n\n   bowline\n")},
		"bowline.rst": {Data: []byte("Bowline\n=======\n\nA fixed loop at the end of a line.\n")},
	}
	_, err := ReadTree(t.Context(), rst, DefaultOptions())
	if !errors.Is(err, ErrRestructuredText) || !strings.Contains(err.Error(), "2 .rst pages") {
		t.Errorf("error %v, want ErrRestructuredText naming 2 .rst pages", err)
	}
	if _, err := ReadTree(t.Context(), fstest.MapFS{"notes.txt": {Data: []byte("x")}}, DefaultOptions()); !errors.Is(err, ErrNoChapters) ||
		!strings.Contains(err.Error(), ".qmd, .Rmd") || !strings.Contains(err.Error(), ".rst") {
		t.Errorf("error %v, want ErrNoChapters naming .qmd, .Rmd and .rst", err)
	}
	rst["guide.md"] = &fstest.MapFile{Data: []byte("# Guide\n\nTie the knot.\n")}
	tree, w := readWarned(t, rst)
	if len(tree.Chapters) != 1 || !strings.Contains(strings.Join(w, "\n"), "2 pages in reStructuredText (.rst) are not read") {
		t.Errorf("chapters %d, warnings %q", len(tree.Chapters), w)
	}
}
