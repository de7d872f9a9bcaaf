package markdown

import (
	"maps"
	"strings"
	"testing"
	"testing/fstest"
)

// sphinxBook is a small Sphinx + MyST site: conf.py and the given pages,
// each "# <its path>" and a line of text unless given.
func sphinxBook(conf string, pages map[string]string, plain ...string) fstest.MapFS {
	fsys := fstest.MapFS{"conf.py": {Data: []byte(conf)}}
	for p, body := range pages {
		fsys[p] = &fstest.MapFile{Data: []byte(body)}
	}
	for _, p := range plain {
		fsys[p] = &fstest.MapFile{Data: []byte("# " + p + "\n\nSome text about " + p + ".\n")}
	}
	return fsys
}

// outline lists a tree as the site's sidebar shows it: its pages at the
// root, then each module's title and pages.
func outline(tree *Tree) []string {
	var out []string
	for _, c := range tree.Chapters {
		if c.ModuleID == "" {
			out = append(out, c.File+" "+c.Title)
		}
	}
	for _, m := range tree.Modules {
		out = append(out, "["+m.Title+"]")
		for _, c := range m.Chapters {
			out = append(out, "  "+c.File)
		}
	}
	return out
}

// A toctree's glob entries list the pages they match, sorted, relative to
// the listing page, each once, whether glob is a :glob: flag or a key of
// the YAML option block.
func TestSphinxToctreeGlob(t *testing.T) {
	lectures := []string{"lectures/10-review.md", "lectures/01-intro.md", "lectures/02-kernels.md", "lectures/deep/extra.md"}
	tests := []struct {
		name  string
		pages map[string]string
		want  []string
		warns []string
	}{
		{"a :glob: flag", map[string]string{
			"index.md": "# Course\n\n```{toctree}\n:caption: Lectures\n:glob:\n\nlectures/*\n```\n",
		}, []string{"index.md Course", "[Lectures]", "  lectures/01-intro.md", "  lectures/02-kernels.md", "  lectures/10-review.md"},
			[]string{"lectures/deep/extra.md"}},
		{"a YAML option block", map[string]string{
			"index.md": "# Course\n\n```{toctree}\n---\nmaxdepth: 1\ncaption: \"Lecture notes:\"\nglob: true\n---\nlectures/*\n```\n",
		}, []string{"index.md Course", "[Lecture notes:]", "  lectures/01-intro.md", "  lectures/02-kernels.md", "  lectures/10-review.md"}, nil},
		{"a YAML flag with no value, in a colon fence", map[string]string{
			"index.md": "# Course\n\n:::{toctree}\n---\ncaption: 'Notes'\nglob:\n---\nlectures/0*\n:::\n",
		}, []string{"index.md Course", "[Notes]", "  lectures/01-intro.md", "  lectures/02-kernels.md"}, nil},
		{"an explicit entry first is not listed again, ** crosses folders", map[string]string{
			"index.md": "# Course\n\n```{toctree}\n:caption: All\n:glob:\n\nlectures/10-review\nlectures/**\n```\n",
		}, []string{"index.md Course", "[All]", "  lectures/10-review.md", "  lectures/01-intro.md", "  lectures/02-kernels.md", "  lectures/deep/extra.md"}, nil},
		{"relative to the listing page, which it does not list", map[string]string{
			"index.md":          "# Course\n\n```{toctree}\nlectures/index\n```\n",
			"lectures/index.md": "# Lectures\n\n```{toctree}\n:glob:\n\n*\n/lectures/deep/*\n```\n",
		}, []string{"index.md Course", "[Lectures]", "  lectures/index.md", "  lectures/01-intro.md", "  lectures/02-kernels.md", "  lectures/10-review.md", "  lectures/deep/extra.md"}, nil},
		{"without glob a pattern is no entry", map[string]string{
			"index.md": "# Course\n\n```{toctree}\n:caption: Lectures\n\nlectures/02-kernels\nlectures/*\n```\n",
		}, []string{"index.md Course", "[Lectures]", "  lectures/02-kernels.md"}, nil},
		{"a glob that matches nothing is warned about", map[string]string{
			"index.md": "# Course\n\n```{toctree}\n:glob:\n\nlabs/*\nlectures/01-intro\n```\n",
		}, []string{"index.md Course", "lectures/01-intro.md lectures/01-intro.md"}, []string{`index.md: toctree glob "labs/*" matches no page`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &warnLog{}
			tree, err := ReadTree(t.Context(), sphinxBook("project = 'Course'\n", tc.pages, lectures...), w.opts())
			if err != nil {
				t.Fatal(err)
			}
			equalLines(t, "outline", outline(tree), tc.want)
			for _, want := range tc.warns {
				if !strings.Contains(w.String(), want) {
					t.Errorf("no warning %q:\n%s", want, w)
				}
			}
		})
	}
}

// Many glob entries over many pages cost a bounded number of matches.
func TestSphinxGlobWorkIsBounded(t *testing.T) {
	var toc strings.Builder
	toc.WriteString("# Course\n\n```{toctree}\n:glob:\n\n")
	for i := 0; i < 5000; i++ {
		toc.WriteString("*" + strings.Repeat("?", i%50) + "x\n")
	}
	toc.WriteString("```\n")
	pages := map[string]string{"index.md": toc.String()}
	var plain []string
	for i := 0; i < 300; i++ {
		plain = append(plain, "p"+strings.Repeat("a", i%7)+string(rune('a'+i%26))+strings.Repeat("b", i/26)+".md")
	}
	w := &warnLog{}
	if _, err := ReadTree(t.Context(), sphinxBook("project = 'Course'\n", pages, plain...), w.opts()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), "not expanded") {
		t.Errorf("no warning that the globs stopped:\n%.500s", w)
	}
}

// A toctree entry that names no page is warned about under the page that
// lists it, not conf.py.
func TestSphinxToctreeWarningsNameTheListingPage(t *testing.T) {
	book := sphinxBook("project = 'Course'\n", map[string]string{
		"index.md":       "# Course\n\n```{toctree}\nunit/index\n```\n",
		"unit/index.md":  "# Unit\n\n```{toctree}\none\n../../outside\nmissing\n```\n",
		"unit/one.md":    "# One\n\nText.\n",
		"unused/page.md": "# Unused\n\nText.\n",
	})
	w := &warnLog{}
	if _, err := ReadTree(t.Context(), book, w.opts()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`unit/index.md: lists "../../outside", which leads out of the book`, `unit/index.md: lists "missing", which is not a page of the book`} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("no warning %q:\n%s", want, w)
		}
	}
	if strings.Contains(w.String(), "conf.py: lists") {
		t.Errorf("a toctree's entry warned about under conf.py:\n%s", w)
	}
}

// The home page is titled by its first heading at any level, or by the
// project; a toctree's quoted caption loses its quotes; its eval-rst
// blocks are their plain text.
func TestSphinxHomePage(t *testing.T) {
	conf := "name = \"Robotics\"\nproject = name + ' 101'\nmyst_enable_extensions = ['colon_fence']\n"
	toctree := "```{toctree}\n---\ncaption: \"Contents:\"\n---\nintro\n```\n"
	tests := []struct {
		name, index, title, chunk string
	}{
		{"no heading: the project", "Welcome, all.\n\n" + toctree, "Robotics 101", "Welcome, all."},
		{"a second-level heading", "## Getting started\n\nWelcome.\n\n" + toctree, "Getting started", "Welcome."},
		{"eval-rst", "# Robotics\n\n```{eval-rst}\n.. include:: ../README.rst\n\n.. note:: Labs start in week 2.\n\n.. toctree::\n   :maxdepth: 2\n\n   missing\n```\n\n" + toctree, "Robotics", "Labs start in week 2."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			book := sphinxBook(conf, map[string]string{"index.md": tc.index}, "intro.md")
			w := &warnLog{}
			tree, err := ReadTree(t.Context(), book, w.opts())
			if err != nil {
				t.Fatal(err)
			}
			equalLines(t, "outline", outline(tree), []string{"index.md " + tc.title, "[Contents:]", "  intro.md"})
			_, chunks, err := Load(t.Context(), book, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			home := chunks[0].Text
			if !strings.Contains(home, tc.chunk) {
				t.Errorf("home page chunk lacks %q:\n%s", tc.chunk, home)
			}
			for _, raw := range []string{"..", "::", "toctree", "README.rst", "eval-rst", "maxdepth"} {
				if strings.Contains(home, raw) {
					t.Errorf("home page chunk shows %q:\n%s", raw, home)
				}
			}
		})
	}
}

// conf.py is read, never run: simple assignments resolve, the rest gives
// that name no value.
func TestReadSphinxConf(t *testing.T) {
	conf := `import os
from pkg import __version__
class_name = "CS 101"
term = 'Fall' ' ' "2031"   # adjacent literals
title = class_name + ": " + term
banner = f"{class_name} ({term}) {{braces}}"
shout = f"{class_name.upper()}"
version = __version__
release = os.environ.get("R", "x")
raw = r"C:\new"
esc = "tab\there"
long = """line one
line two"""
if True:
    class_name = "overwritten in a block"
def setup(app):
    term = "inside a function"
myst_substitutions = {
    "class_name": class_name,
    'title': title,
    "version": version,
    "nested": {"a": "b"},
    "joined": ("a" +
               "b"),
}
myst_substitutions["banner"] = banner
other = dict(key=term, n=3)
exts = ["colon_fence", "substitution"]
tags = {"a", "b"}
unclosed = {"x": "y",
`
	c := readSphinxConf([]byte(conf))
	wantStrs := map[string]string{
		"class_name": "CS 101", "term": "Fall 2031", "title": "CS 101: Fall 2031", "banner": "CS 101 (Fall 2031) {braces}",
		"raw": `C:\new`, "esc": "tab\there", "long": "line one\nline two",
	}
	for k, want := range wantStrs {
		if got, ok := c.strs[k]; !ok || got != want {
			t.Errorf("%s = %q (%v), want %q", k, got, ok, want)
		}
	}
	for _, k := range []string{"shout", "version", "release"} {
		if v, ok := c.strs[k]; ok {
			t.Errorf("%s resolved to %q, want no value", k, v)
		}
	}
	wantSubs := map[string]string{"class_name": "CS 101", "title": "CS 101: Fall 2031", "joined": "ab", "banner": "CS 101 (Fall 2031) {braces}"}
	if got := c.dicts["myst_substitutions"]; !maps.Equal(got, wantSubs) {
		t.Errorf("myst_substitutions = %v, want %v", got, wantSubs)
	}
	if got := c.dicts["other"]; !maps.Equal(got, map[string]string{"key": "Fall 2031"}) {
		t.Errorf("other = %v", got)
	}
	if got := strings.Join(c.lists["exts"], ","); got != "colon_fence,substitution" {
		t.Errorf("exts = %q", got)
	}
	if got := strings.Join(c.lists["tags"], ","); got != "a,b" {
		t.Errorf("tags = %q", got)
	}
}

// A page's {{ name }} takes its value from a myst_substitutions entry
// that names a variable assigned above it.
func TestSphinxSubstitutionOfAVariable(t *testing.T) {
	conf := "class_name = \"CS 101\"\nproject = class_name\nmyst_enable_extensions = [\"substitution\"]\nmyst_substitutions = {\"class_name\": class_name}\n"
	book := sphinxBook(conf, map[string]string{
		"index.md": "# Home\n\nWelcome to {{ class_name }}; this is {{ env.config.project }}{{ env.docname }}.\n",
	})
	_, chunks, err := Load(t.Context(), book, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if want := "Welcome to CS 101; this is CS 101."; !strings.Contains(chunks[0].Text, want) {
		t.Errorf("chunk lacks %q:\n%s", want, chunks[0].Text)
	}
}

// An eval-rst block's toctrees list pages as the site's do, in either
// fence; one shown inside a code block lists none.
func TestSphinxEvalRSTToctree(t *testing.T) {
	tests := []struct {
		name, index string
		want        []string
	}{
		{"backtick fence", "# Course\n\n```{eval-rst}\n.. note:: Read first.\n\n.. toctree::\n   :caption: Labs\n   :maxdepth: 1\n\n   labs/one\n   Second lab <labs/two>\n\nAfter the toctree.\n```\n",
			[]string{"index.md Course", "[Labs]", "  labs/one.md", "  labs/two.md"}},
		{"colon fence, closed by the fence, with a glob", ":::{eval-rst}\n.. toctree::\n   :glob:\n\n   labs/*\n:::\n",
			[]string{"index.md Course", "labs/one.md labs/one.md", "labs/two.md labs/two.md"}},
		{"shown in a code block", "# Course\n\n````md\n```{eval-rst}\n.. toctree::\n\n   labs/one\n```\n````\n",
			[]string{"index.md Course"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			book := sphinxBook("project = 'Course'\n", map[string]string{"index.md": tc.index}, "labs/one.md", "labs/two.md")
			tree, err := ReadTree(t.Context(), book, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			equalLines(t, "outline", outline(tree), tc.want)
		})
	}
}
