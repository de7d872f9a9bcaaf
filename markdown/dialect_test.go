package markdown

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/textbook-rag/rag"
)

// The fixture books under testdata are written for these tests in the
// layouts of other Markdown tools: docbuilder as Hugging Face's
// doc-builder reads a course (a _toctree.yml, [[anchors]], components and
// framework blocks), mdbook as mdBook reads a book (src/SUMMARY.md,
// {{#include}} lines).

func loadDir(t *testing.T, dir string, o Options) (rag.Book, []rag.Chunk) {
	t.Helper()
	book, chunks, err := Load(t.Context(), os.DirFS(dir), o)
	if err != nil {
		t.Fatal(err)
	}
	checkChunks(t, chunks)
	return book, chunks
}

func allText(chunks []rag.Chunk) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString(c.Text)
		b.WriteString("\n")
	}
	return b.String()
}

func TestDocBuilderHeadingsAndComponents(t *testing.T) {
	_, chunks := loadDir(t, "testdata/docbuilder", DefaultOptions())
	anchors := map[string]string{} // heading -> anchor
	for _, c := range chunks {
		for _, s := range append([]string{c.SectionHeading, c.ChapterTitle}, headingTexts(c.Headings)...) {
			if strings.Contains(s, "[[") {
				t.Errorf("%s: heading or title %q keeps its doc-builder anchor", c.ChapterPath, s)
			}
		}
		for _, h := range c.Headings {
			anchors[h.Text] = h.Anchor
		}
	}
	for heading, want := range map[string]string{
		"Attention masks":                  "attention-masks",
		"Queries, keys and values":         "queries-keys-and-values",
		"Working in a notebook":            "working-in-a-notebook",
		"Softmax over each row":            "softmax-over-each-row",
		"Longer sequences":                 "longer-sequences",
		"The matrix product":               "the-matrix-product",
		"Working in a virtual environment": "working-in-a-virtual-environment",
	} {
		if got, ok := anchors[heading]; !ok || got != want {
			t.Errorf("section %q: anchor %q (found %v), want %q", heading, got, ok, want)
		}
	}
	text := allText(chunks)
	for _, bad := range []string{"{#if", "{:else}", "{/if}", "<Tip", "</Tip>", "Youtube", "CourseFloatingBanner", "FrameworkSwitchCourse", "DocNotebookDropdown", "example.org", "notebooks=", "[[queries", "tf.matmul", "tf.nn.softmax", "[!TIP]", "TensorFlow tensors"} {
		if strings.Contains(text, bad) {
			t.Errorf("chunks hold %q", bad)
		}
	}
	for _, want := range []string{
		"The values are what gets mixed",                // <Tip> keeps its text
		"Scores grow with the size of the vectors",      // <Tip warning={true}> too
		"scores = queries @ keys.transpose(-2, -1)",     // the default framework's code
		"torch.softmax(scores, dim=-1)",                 // default in an {:else} branch
		"The tokenizer returns PyTorch tensors",         // in a GitHub alert
		"# Attention masks[[attention-masks]]\nbatch =", // code is left as it is
	} {
		if !strings.Contains(text, want) {
			t.Errorf("chunks lack %q", want)
		}
	}
}

func headingTexts(hs []rag.Heading) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Text)
	}
	return out
}

// treeOutline lists a tree as "module|chapter path|title|route" lines in
// book order, modules first with their titles.
func treeOutline(t *Tree) (modules, chapters []string) {
	for _, m := range t.Modules {
		modules = append(modules, m.ID+"="+m.Title)
	}
	for _, c := range t.Chapters {
		chapters = append(chapters, c.ModuleID+"|"+c.Path+"|"+c.Title+"|"+c.Route)
	}
	return modules, chapters
}

// warnLog collects every warning of a load, in order.
type warnLog []string

func (w *warnLog) opts() Options {
	o := DefaultOptions()
	o.Warn = func(path string, err error) { *w = append(*w, path+": "+err.Error()) }
	return o
}

func (w *warnLog) String() string { return strings.Join(*w, "\n") }

func readTree(t *testing.T, dir string) (*Tree, *warnLog) {
	t.Helper()
	w := &warnLog{}
	tree, err := ReadTree(t.Context(), os.DirFS(dir), w.opts())
	if err != nil {
		t.Fatal(err)
	}
	return tree, w
}

func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDocBuilderToctree(t *testing.T) {
	tree, w := readTree(t, "testdata/docbuilder")
	modules, chapters := treeOutline(tree)
	equalLines(t, "modules", modules, []string{
		"chapter0=0. Setup",
		"chapter1=1. Attention, step by step",
		"chapter2=2. Putting it to work",
	})
	// The root chapters first (the listed one, then the unlisted ones),
	// then each module's in the order of _toctree.yml, its unlisted
	// pages after them.
	equalLines(t, "chapters", chapters, []string{
		"|events/1|Live sessions|events/1",
		"chapter0|chapter0/1|Setting up a working environment|chapter0/1",
		"chapter1|chapter1/1|Introduction|chapter1/1",
		"chapter1|chapter1/3|Masks and padding|chapter1/3",
		"chapter1|chapter1/2|Scores|chapter1/2",
		"chapter1|chapter1/2b|Scaled scores|chapter1/2b",
		"chapter1|chapter1/4_tf|Attention in Keras|chapter1/tf",
		"chapter2|chapter2/1|A small classifier|chapter2/1",
	})
	// The navigation places root chapters and modules by position.
	pos := map[string]float64{}
	for _, m := range tree.Modules {
		pos[m.ID] = m.Position
	}
	for _, c := range tree.Chapters {
		pos[c.Path] = c.Position
	}
	if !(pos["chapter0"] < pos["chapter1"] && pos["chapter1"] < pos["events/1"] && pos["events/1"] < pos["chapter2"] && pos["chapter2"] < pos["chapter1/4_tf"]) {
		t.Errorf("positions do not follow _toctree.yml: %v", pos)
	}
	if !strings.Contains(w.String(), "chapter1/4_tf.md: not listed in _toctree.yml") {
		t.Errorf("no warning about the unlisted page: %s", w)
	}
}

func TestMdBookSummary(t *testing.T) {
	tree, w := readTree(t, "testdata/mdbook")
	modules, chapters := treeOutline(tree)
	equalLines(t, "modules", modules, []string{
		"getting-started=Getting Started",
		"appendix=Appendix",
	})
	// Pages outside src/ (the repository's README, the print edition,
	// included notes) are no pages of the book; SUMMARY.md is none; nor
	// is a page SUMMARY.md does not list (mdBook builds only those).
	equalLines(t, "chapters", chapters, []string{
		"|src/title-page|The Fixture Book|title-page",
		"|src/foreword|Foreword|foreword",
		"|src/ch02-00-guessing-game|Programming a Guessing Game|ch02-00-guessing-game",
		"getting-started|src/ch01-00-getting-started|Getting Started|ch01-00-getting-started",
		"getting-started|src/ch01-01-installation|Installation|ch01-01-installation",
		"getting-started|src/ch01-02-hello-world|Hello, World!|ch01-02-hello-world",
		"appendix|src/appendix-00|Appendix|appendix-00",
		"appendix|src/appendix/keywords|A - Keywords|appendix/keywords",
	})
	if m := tree.Modules[0]; m.Index == nil || m.Index.Path != "src/ch01-00-getting-started" {
		t.Errorf("module %s: index %v, want its own page", m.ID, m.Index)
	}
	pos := map[string]float64{}
	for _, m := range tree.Modules {
		pos[m.ID] = m.Position
	}
	for _, c := range tree.Chapters {
		pos[c.Path] = c.Position
	}
	if !(pos["src/foreword"] < pos["getting-started"] && pos["getting-started"] < pos["src/ch02-00-guessing-game"] &&
		pos["src/ch02-00-guessing-game"] < pos["appendix"]) {
		t.Errorf("positions do not follow SUMMARY.md: %v", pos)
	}
	for _, want := range []string{
		"src/SUMMARY.md: skipped: not pages of the book, as it does not list them (1): src/unlisted.md",
		"src/SUMMARY.md: 3 pages outside src/ are not part of the mdBook: README.md, listings/ch01/note.md, nostarch/chapter01.md",
	} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("no warning %q in %s", want, w)
		}
	}
}

func TestMdBookIncludes(t *testing.T) {
	for _, read := range []string{"folder", "snapshot"} {
		t.Run(read, func(t *testing.T) {
			w := &warnLog{}
			fsys := os.DirFS("testdata/mdbook")
			if read == "snapshot" {
				// ReadDir reads the included files into the snapshot too,
				// through os.Root.
				snap, err := ReadDir(t.Context(), "testdata/mdbook", w.opts())
				if err != nil {
					t.Fatal(err)
				}
				fsys = snap
			}
			_, chunks, err := Load(t.Context(), fsys, w.opts())
			if err != nil {
				t.Fatal(err)
			}
			byPath := map[string]string{}
			for _, c := range chunks {
				byPath[c.ChapterPath] += c.Text + "\n"
			}
			hello, guess := byPath["src/ch01-02-hello-world"], byPath["src/ch02-00-guessing-game"]
			for _, want := range []string{
				"```rust\n    println!(\"Hello, world!\");\n```",                 // rustdoc_include by anchor
				"> Note: the compiler and the build tool are installed together", // Markdown included
				`escape it: {{#include file.rs}} is shown as it is written`,
			} {
				if !strings.Contains(hello, want) {
					t.Errorf("hello world lacks %q:\n%s", want, hello)
				}
			}
			for _, want := range []string{
				"```rust,ignore\n    let mut guess = String::new();\n    io::stdin().read_line(&mut guess).expect(\"Failed to read line\");\n    println!(\"You guessed: {guess}\");\n```",
				"```rust,editable\nuse std::io;",
				"```rust,ignore\n    match guess.cmp(&secret_number) {",
			} {
				if !strings.Contains(guess, want) {
					t.Errorf("guessing game lacks %q:\n%s", want, guess)
				}
			}
			text := allText(chunks)
			for _, bad := range []string{"{{#include ../", "{{#rustdoc", "{{#playground", "{{#title", "ANCHOR", "\\{{", "fn main() {\n    println"} {
				if strings.Contains(text, bad) {
					t.Errorf("chunks hold %q", bad)
				}
			}
			for _, want := range []string{
				"src/ch02-00-guessing-game.md: {{#include ../listings/ch02/missing.rs}} left out: listings/ch02/missing.rs: no such file in the book",
				"src/ch02-00-guessing-game.md: {{#include ../../outside.rs}} left out: ../../outside.rs leads out of the book",
			} {
				if !strings.Contains(w.String(), want) {
					t.Errorf("no warning %q in %s", want, w)
				}
			}
		})
	}
}

func TestSelectLines(t *testing.T) {
	src := "one\n// ANCHOR: a\ntwo\n// ANCHOR: b\nthree\n// ANCHOR_END: b\n// ANCHOR_END: a\nfour\n"
	tests := []struct{ sel, want, err string }{
		{"", "one\ntwo\nthree\nfour", ""},
		{"3", "two", ""},
		{":3", "one\ntwo", ""},
		{"5:", "three\nfour", ""},
		{"3:5", "two\nthree", ""},
		{"8:99", "four", ""},
		{"a", "two\nthree", ""},
		{"b", "three", ""},
		{"c", "", `no anchor "c"`},
		{"x:2", "", `"x" is not a line number`},
	}
	for _, tt := range tests {
		got, err := selectLines(src, tt.sel)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("selectLines(%q): error %v, want %q", tt.sel, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("selectLines(%q) = %q, %v; want %q", tt.sel, got, err, tt.want)
		}
	}
}

func TestToctreeMistakesNameLineAndField(t *testing.T) {
	page := &fstest.MapFile{Data: []byte("# A\n\nText.\n")}
	tests := []struct{ toctree, want string }{
		{"- title: A\n  sections: chapter1/1\n", `read _toctree.yml: line 2: "sections" is text, want a list of sections`},
		{"title: A\n", "read _toctree.yml: line 1: the file is a mapping, want a list of sections"},
		{"- title: [A, B]\n  local: a\n", `read _toctree.yml: line 1: "title" is a list, want text`},
		{"- just text\n", "read _toctree.yml: line 1: a section is text, want a mapping (title, local, sections)"},
		{"- title: A\n  local: &x a\n- title: B\n  local: *x\n", `read _toctree.yml: line 4: "local" is an alias (*name), want text`},
		{"- title: 'A\n", "read _toctree.yml: not valid YAML: yaml: line 2: found unexpected end of stream"},
		{"", "read _toctree.yml: empty: want a list of sections"},
	}
	for _, tt := range tests {
		book := fstest.MapFS{"a.md": page, "_toctree.yml": {Data: []byte(tt.toctree)}}
		_, err := ReadTree(t.Context(), book, DefaultOptions())
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: error %v, want %q", tt.toctree, err, tt.want)
		}
	}
	var deep strings.Builder
	for i := range 40 {
		deep.WriteString(strings.Repeat("  ", i) + "- sections:\n")
	}
	deep.WriteString(strings.Repeat("  ", 40) + "- local: a\n")
	_, err := ReadTree(t.Context(), fstest.MapFS{"a.md": page, "_toctree.yml": {Data: []byte(deep.String())}}, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "nested deeper than") {
		t.Errorf("deep nesting: %v", err)
	}
}

// A page that happens to be called SUMMARY.md, in a book of another
// layout, stays a page.
func TestSummaryPageThatIsNoTableOfContents(t *testing.T) {
	book := fstest.MapFS{
		"SUMMARY.md":        {Data: []byte("# Summary\n\nThe course in one page: [sensors](m/sensors.md) sense, motors move.\n")},
		"m/sensors.md":      {Data: []byte("# Sensors\n\nAn IMU measures acceleration.\n")},
		"m/_category_.json": {Data: []byte(`{"label": "Module One"}`)},
		"src/SUMMARY.md":    {Data: []byte("- [Nothing](missing.md)\n")},
	}
	tree, w := readTreeFS(t, book)
	modules, chapters := treeOutline(tree)
	equalLines(t, "modules", modules, []string{"m=Module One", "src=src"})
	equalLines(t, "chapters", chapters, []string{"|SUMMARY|Summary|SUMMARY", "m|m/sensors|Sensors|m/sensors", "src|src/SUMMARY|SUMMARY|src/SUMMARY"})
	if len(*w) != 0 {
		t.Errorf("warnings: %s", w)
	}
}

func readTreeFS(t *testing.T, fsys fstest.MapFS) (*Tree, *warnLog) {
	t.Helper()
	w := &warnLog{}
	tree, err := ReadTree(t.Context(), fsys, w.opts())
	if err != nil {
		t.Fatal(err)
	}
	return tree, w
}

// Included files that include each other stop after ten levels, and a
// page grows by its includes to at most the size limit of a file.
func TestIncludeLoopsAndSize(t *testing.T) {
	book := fstest.MapFS{
		"SUMMARY.md":     {Data: []byte("- [A](a.md)\n- [Big](big.md)\n")},
		"a.md":           {Data: []byte("# A\n\nStart.\n\n{{#include parts/b.txt}}\n\nEnd.\n")},
		"parts/b.txt":    {Data: []byte("b then\n{{#include c.txt}}\n")},
		"parts/c.txt":    {Data: []byte("c then\n{{#include b.txt}}\n")},
		"big.md":         {Data: []byte("# Big\n\n" + strings.Repeat("{{#include parts/blob.txt}}\n", 5))},
		"parts/blob.txt": {Data: []byte(strings.Repeat("x", 300) + "\n")},
	}
	o := DefaultOptions()
	o.MaxFileBytes = 1000
	w := &warnLog{}
	o.Warn = func(path string, err error) { *w = append(*w, path+": "+err.Error()) }
	tree, err := ReadTree(t.Context(), book, o)
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string]string{}
	for _, c := range tree.Chapters {
		bodies[c.Path] = string(c.Body)
	}
	if got := strings.Count(bodies["a"], "then"); got != 10 {
		t.Errorf("a: %d included levels, want 10:\n%s", got, bodies["a"])
	}
	if !strings.Contains(bodies["a"], "End.") {
		t.Error("a: the text after the include is lost")
	}
	if got := strings.Count(bodies["big"], strings.Repeat("x", 300)); got != 3 {
		t.Errorf("big: %d blobs, want 3 (1000 bytes of room)", got)
	}
	for _, want := range []string{"a.md: {{#include b.txt}} left out: included files nest deeper than 10 levels",
		"big.md: {{#include parts/blob.txt}} left out: the page would pass the limit of 1000 bytes per file"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("no warning %q in %s", want, w)
		}
	}
}
