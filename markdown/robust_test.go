package markdown

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/markdown/page"
)

// warnings collects the files a load left out.
type warnings map[string]string

func (w warnings) opts() Options {
	o := DefaultOptions()
	o.Warn = func(path string, err error) { w[path] = err.Error() }
	return o
}

func TestOversizedFileSkipped(t *testing.T) {
	w := warnings{}
	o := w.opts()
	o.MaxFileBytes = 1000
	book := fstest.MapFS{
		"a.md":   {Data: []byte("# A\n\nA page of ordinary size about robots.\n")},
		"big.md": {Data: []byte("# Big\n\n" + strings.Repeat("robot ", 500))},
	}
	_, chunks, err := Load(t.Context(), book, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		if c.ChapterPath == "big" {
			t.Error("a page over the size limit was read")
		}
	}
	if msg := w["big.md"]; !strings.Contains(msg, "1000 bytes") {
		t.Errorf("warning for big.md = %q, want the limit named", msg)
	}
}

// A file the loader cannot use is left out with a warning and the rest of
// the book is read, whatever the reason: a page over the size limit, a
// page that is not UTF-8, a _category_.json over the limit.
func TestUnreadableFilesSkipped(t *testing.T) {
	page := []byte("# A\n\nA page of ordinary size about robots.\n")
	tests := []struct {
		name, file, want string
		data             []byte
	}{
		{"oversized page", "m/big.md", "larger than the limit of 1000 bytes", []byte("# Big\n\n" + strings.Repeat("robot ", 500))},
		{"invalid UTF-8 page", "m/bad.md", "not valid UTF-8", []byte("# Bad\n\nLatin-1 caf\xe9 \xff\xfe\n")},
		{"oversized _category_.json", "m/_category_.json", "larger than the limit of 1000 bytes", []byte(`{"label": "` + strings.Repeat("x", 2000) + `"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := warnings{}
			o := w.opts()
			o.MaxFileBytes = 1000
			book := fstest.MapFS{"m/a.md": {Data: page}, tt.file: {Data: tt.data}}
			_, chunks, err := Load(t.Context(), book, o)
			if err != nil {
				t.Fatalf("Load = %v, want the file skipped and the book read", err)
			}
			if len(chunks) == 0 || chunks[0].ChapterPath != "m/a" || chunks[len(chunks)-1].ChapterPath != "m/a" {
				t.Errorf("chunks %+v, want m/a's only", chunks)
			}
			if msg := w[tt.file]; !strings.Contains(msg, "skipped") || !strings.Contains(msg, tt.want) {
				t.Errorf("warning for %s = %q, want skipped: %s", tt.file, msg, tt.want)
			}
		})
	}
}

func TestLineEndingsAndControlCharacters(t *testing.T) {
	body := "# Title\n\nIntro of the page about sensors and motors.\n\n## Sensors\n\nA camera \x00sees\x1b[31m light.\f Lidar\x7f measures range.\u0085\n\n## Motors\n\nA motor turns.\n"
	book := fstest.MapFS{
		"cr.md":   {Data: []byte(strings.ReplaceAll(body, "\n", "\r"))},
		"crlf.md": {Data: []byte(strings.ReplaceAll(body, "\n", "\r\n"))},
		"lf.md":   {Data: []byte(body)},
	}
	_, chunks := load(t, book, DefaultOptions())
	texts := map[string]string{}
	for _, c := range chunks {
		texts[c.ChapterPath] += c.Text
		for _, r := range c.Text {
			if r != '\n' && r != '\t' && (r < 0x20 || r >= 0x7f && r < 0xa0) {
				t.Errorf("%s: chunk holds control character %U", c.ChapterPath, r)
			}
		}
	}
	want := texts["lf"]
	if !strings.Contains(want, "## Motors") || !strings.Contains(want, "A camera sees[31m light.  Lidar measures range.") {
		t.Fatalf("LF page chunks: %q", want)
	}
	for _, p := range []string{"cr", "crlf"} {
		if texts[p] != want {
			t.Errorf("%s page gives %q, want what the LF page gives", p, texts[p])
		}
	}
}

func TestCategoryErrorsNameFileAndField(t *testing.T) {
	tests := []struct{ name, json, want string }{
		{"label is an array", `{"label": ["a"]}`, `field "label" is an array, want a string`},
		{"position is a string", `{"label": "M", "position": "2"}`, `field "position" is a string, want a number`},
		{"not an object", `[1, 2]`, `want a JSON object, found an array`},
		{"cut short", `{"label": "M"`, `not valid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			book := fstest.MapFS{
				"m/_category_.json": {Data: []byte(tt.json)},
				"m/a.md":            {Data: []byte("# A\n\ntext")},
			}
			_, _, err := Load(t.Context(), book, DefaultOptions())
			if err == nil || !strings.Contains(err.Error(), "m/_category_.json") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to name m/_category_.json and say %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "Go") {
				t.Errorf("error %v speaks of Go types", err)
			}
		})
	}
}

func TestLoadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := Load(ctx, testBook(), DefaultOptions()); !errors.Is(err, context.Canceled) {
		t.Errorf("Load with a cancelled context: %v", err)
	}
}

// longRunsBook holds the pages that made ingest quadratic: a 1 MB word,
// a 2,000-space indent, a long punctuation run, and many tags and imports
// that never close.
func longRunsBook() fstest.MapFS {
	return fstest.MapFS{
		"word.md":   {Data: []byte("# Word\n\n" + strings.Repeat("abcdefghij", 100_000) + "\n")},
		"indent.md": {Data: []byte("# Indent\n\nText.\n\n" + strings.Repeat(" ", 2000) + "deep\n")},
		"punct.md":  {Data: []byte("# Punct\n\nText " + strings.Repeat("-=", 50_000) + " end.\n")},
		// Lines that open a tag or an import that never closes.
		"tags.md":    {Data: []byte("# Tags\n\nText.\n\n" + strings.Repeat("<Tab x={\n", 20_000))},
		"imports.md": {Data: []byte("# Imports\n\nText.\n\n" + strings.Repeat("import {\n", 20_000))},
	}
}

func TestLongRuns(t *testing.T) {
	_, chunks := load(t, longRunsBook(), DefaultOptions())
	seen := map[string]bool{}
	for _, c := range chunks {
		seen[c.ChapterPath] = true
	}
	for _, p := range []string{"word", "indent", "punct", "tags", "imports"} {
		if !seen[p] {
			t.Errorf("%s: no chunks", p)
		}
	}
}

// BenchmarkLoadLongRuns is the target: a 1 MB single word (and
// the other long runs) ingest in well under 2 s.
func BenchmarkLoadLongRuns(b *testing.B) {
	book := longRunsBook()
	page.CountTokens("load the encoding")
	for b.Loop() {
		if _, _, err := Load(b.Context(), book, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// checkChunks holds for any book that loads: valid, clean text, unique
// chunk ids; one chapter id and one page path per chapter, none shared.
func checkChunks(t *testing.T, chunks []rag.Chunk) {
	t.Helper()
	ids := map[string]bool{}
	chapterOf := map[string]string{}
	for _, c := range chunks {
		for _, key := range []string{"id " + c.ChapterID, "page " + c.PagePath} {
			if p, ok := chapterOf[key]; ok && p != c.ChapterPath {
				t.Fatalf("%s and %s share the %s", p, c.ChapterPath, key)
			}
			chapterOf[key] = c.ChapterPath
		}
		if !utf8.ValidString(c.Text) {
			t.Fatalf("%s: chunk text is not valid UTF-8", c.ChapterPath)
		}
		if strings.ContainsAny(c.Text, "\x00\r") {
			t.Fatalf("%s: chunk text holds NUL or CR: %q", c.ChapterPath, c.Text)
		}
		if ids[c.ID] {
			t.Fatalf("%s: duplicate chunk id %s", c.ChapterPath, c.ID)
		}
		ids[c.ID] = true
	}
}

func FuzzChunker(f *testing.F) {
	for _, seed := range []string{
		"# T\n\nText.\n",
		"# T\r\rIntro.\r\r## A\r\rBody.\r",
		"# T\r\n\r\n## A\r\n\r\nBody.\r\n",
		"# T\n\nNUL\x00 and \x1b escape.\n",
		"---\nid: x\ntitle: \"Y\"\n---\n## A\n\n:::tip\nHi\n:::\n",
		"## A\n\n```\nunclosed code\n",
		"<Tabs><TabItem value=\"a\">\n\nText\n\n</TabItem></Tabs>\n",
		"| a | b |\n|---|---|\n| 1 | 2 |\n",
		"# W\n\n" + strings.Repeat("x", 5000) + "\n",
		"# I\n\n" + strings.Repeat(" ", 2000) + "deep\n",
		"# P\n\n" + strings.Repeat("-=", 2000) + "\n",
		"### {#id}\n\n#\n\n##\n",
		"!!! note \"T\"\n    a\n\n    === \"B\"\n        b\n\t\n  c\n/// tip | x\n///\n",
		"```{note}\n:class: x\n````{code-cell} ipython3\n:tags: [a]\ny\n````\n",
		"```{r a, echo=FALSE}\nx\n```\n`r 1+1` [@a; -@b] @fig-x \\@ref(fig:y) {{< x >}}\n# H {-}\n",
		"::: {.callout-note title=\"A\"}\n:::{tip}\n:label: z\n{doc}`a\n<b>` {eq}`\n",
		"```python\n{!> ../x.py !}\n```\n{* x *}\n--8<-- \"y\"\n(l)=\n+++ {}\n% c\n: d\n",
		"{{< tabpane lang=go >}}\n{{< tab header=\"a\" >}}\nx\n{{< highlight\n  sh >}}\n{{% param \"p\" %}}\n{{< figure\n```\n",
		"```{toctree}\n---\n---\n````{myst-example}\n---\n:::{note}\n---\nx\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, page string) {
		o := DefaultOptions()
		o.Warn = func(string, error) {}
		_, chunks, err := Load(t.Context(), fstest.MapFS{"m/p.md": {Data: []byte(page)}}, o)
		if err != nil {
			if !utf8.ValidString(page) {
				return
			}
			t.Fatalf("a valid UTF-8 page failed to load: %v", err)
		}
		checkChunks(t, chunks)
	})
}

func FuzzLoader(f *testing.F) {
	f.Add("a.md", "# A\n\nText.\n", "m/b.md", "# B\n\nMore.\n", `{"label": "M", "position": 1}`)
	f.Add("m/a.md", "# A\r\rText.\r", "m/n/b.md", "# B\x00\n", `{"label": ["x"]}`)
	f.Add("m/index.md", "---\nid: same\n---\n# A\n\nx\n", "m/other.md", "---\nid: same\n---\n# B\n\ny\n", `[`)
	f.Add("m/_x.md", "hidden", "m/.git/a.md", "hidden", `null`)
	f.Add("SUMMARY.md", "# S\n\n[I](m/a.md)\n\n- [A](m/b.md)\n  - [B]()\n", "m/a.md", "# A\n\n{{#include b.md:2:3}}\n{{#include b.md:x}}\n", `{}`)
	f.Add("src/SUMMARY.md", "- [A](a.md)\n", "src/a.md", "{{#include a.md}}\n\\{{#include a.md}}\n{{#playground ../../x}}\n", `{}`)
	f.Add("mkdocs.yml", "site_name: S\ndocs_dir: d\nnav:\n  - A: a.md\n  - G:\n    - d/b.md\n    - https://x\n", "d/b.md", "# B\n!!! note\n    x\n", `{}`)
	f.Add("_toc.yml", "root: a\nparts:\n- caption: P\n  chapters:\n  - file: m/b\n    sections:\n    - file: m/c\n", "m/b.ipynb", `{"cells":[{"cell_type":"code","source":["x"]}]}`, `{}`)
	f.Add("_quarto.yml", "book:\n  title: Q\n  chapters:\n    - index.qmd\n    - part: P\n      chapters: [m/b.qmd]\n  appendices: [c.qmd]\n", "m/b.qmd", "```{r}\n#| echo: false\nx\n```\n", `{}`)
	f.Add("_bookdown.yml", "rmd_files:\n  html: [index.Rmd, b.Rmd]\n", "b.Rmd", "# B {-}\n(ref:x) cap\n", `{}`)
	f.Add("_config.yml", "title: J\ncollections:\n  c:\n    permalink: /c/:name/\n", "_c/a.md", "---\nlayout: x\npermalink: /p/\n---\nText\n", `{}`)
	f.Add("sidebars.js", "module.exports = {s: ['a', {type: 'category', label: 'C', items: [{type: 'autogenerated', dirName: 'm'}]}, ...x]};", "m/a.md", "# A\n", `{}`)
	f.Add("_toctree.yml", "- title: T\n  sections:\n  - local: m/a\n    title: A\n", "m/a.md", "# A[[a]]\n{#if fw === 'pt'}\nX\n{:else}\nY\n{/if}\n", `{}`)
	f.Fuzz(func(t *testing.T, p1, d1, p2, d2, category string) {
		book := fstest.MapFS{}
		for _, file := range [][2]string{{p1, d1}, {p2, d2}} {
			if fstestPathOK(file[0]) {
				book[file[0]] = &fstest.MapFile{Data: []byte(file[1])}
			}
		}
		if fstestPathOK(p1) && strings.Contains(p1, "/") {
			book[p1[:strings.LastIndexByte(p1, '/')]+"/_category_.json"] = &fstest.MapFile{Data: []byte(category)}
		}
		o := DefaultOptions()
		o.Warn = func(string, error) {}
		_, chunks, err := Load(t.Context(), book, o)
		if err != nil {
			return // a clear error is a fine outcome; a panic is not
		}
		checkChunks(t, chunks)
	})
}

// fstestPathOK keeps a fuzzed name that a MapFS can hold as a file.
func fstestPathOK(p string) bool {
	if p == "" || p == "." || !utf8.ValidString(p) || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return false
	}
	for _, el := range strings.Split(p, "/") {
		if el == "" || el == "." || el == ".." {
			return false
		}
	}
	return true
}

// vanishingFS is a book whose folder gone was removed between listing its
// parent and reading it.
type vanishingFS struct {
	fstest.MapFS
	gone string
}

func (v vanishingFS) Open(name string) (fs.File, error) {
	if name == v.gone || strings.HasPrefix(name, v.gone+"/") {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return v.MapFS.Open(name)
}

func (v vanishingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == v.gone {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return v.MapFS.ReadDir(name)
}

// A folder removed while the book is read is left out with a warning;
// the rest of the book is read.
func TestFolderRemovedDuringRead(t *testing.T) {
	book := vanishingFS{MapFS: fstest.MapFS{
		"a.md":   {Data: []byte("# A\n\nA page about robots.\n")},
		"m/b.md": {Data: []byte("# B\n\nA page about sensors.\n")},
	}, gone: "m"}
	w := warnings{}
	_, chunks, err := Load(t.Context(), book, w.opts())
	if err != nil {
		t.Fatalf("Load = %v, want the folder skipped", err)
	}
	for _, c := range chunks {
		if c.ChapterPath != "a" {
			t.Errorf("read %s", c.ChapterPath)
		}
	}
	if msg := w["m"]; !strings.Contains(msg, "removed while the book was read") {
		t.Errorf("warning for m = %q", msg)
	}
}

// Any layout config file, however malformed, reads as a book or as a
// clear error: never a panic, never a chunk the checks reject.
func FuzzLayoutConfig(f *testing.F) {
	for _, seed := range [][2]string{
		{"mkdocs.yml", "nav:\n  - a.md\n  - S:\n    - m/b.md\n"},
		{"mkdocs.yml", "nav: [[[\n"},
		{"_toc.yml", "root: a\nchapters:\n- file: m/b\n  sections: 3\n"},
		{"_quarto.yml", "book:\n  chapters:\n    - part: m/b.md\n      chapters: {x: 1}\n"},
		{"_bookdown.yml", "rmd_files: 7\n"},
		{"_config.yml", "collections: [m, _x]\n"},
		{"sidebars.ts", "export default {a: [{type: 'doc', id: 'm/b'}, 'a', {'C': ['m/b']}]} as const;"},
		{"sidebars.js", "module.exports = {a: [`x${y}`, {type: 'category', items: [[[{"},
		{"SUMMARY.md", "- [A](a.md)\n  <!-- x -->\n  text\n- [[B]](m/b.md) [C](c.md)\n"},
		{"myst.yml", "project:\n  toc:\n    - file: a.md\n    - title: P\n      children: [{file: m/b.md}, 3]\n"},
		{"hugo.toml", "title = \"T\"\n[params\n"},
		{"conf.py", "project = 'P'\nroot_doc = 'a'\n"},
		{"conf.py", "myst_substitutions = {'a': \"x\", \"b\": 'y', 'c': {\n"},
		{"config/_default/hugo.yaml", "defaultContentLanguage: 3\nlanguages: [1, 2]\nparams: {a: {b: [x]}}\ncontentDir: ../up\n"},
		{"config/_default/hugo.toml", "contentDir = \"m\"\n[languages.m]\ncontentDir = \"m\"\n"},
		{"config/_default/hugo.yaml", "languages:\n  en: {contentDir: m}\n  fa: {contentDir: m}\n  de: {contentDir: .}\n"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, name, config string) {
		if !configFiles[name] && name != summaryFile {
			return
		}
		book := fstest.MapFS{
			name:      {Data: []byte(config)},
			"a.md":    {Data: []byte("# A\n\nText.\n")},
			"m/b.md":  {Data: []byte("# B\n\nMore.\n")},
			"_m/c.md": {Data: []byte("---\nlayout: x\n---\nC.\n")},
		}
		o := DefaultOptions()
		o.Warn = func(string, error) {}
		_, chunks, err := Load(t.Context(), book, o)
		if err != nil {
			return // a clear error is a fine outcome; a panic is not
		}
		checkChunks(t, chunks)
	})
}
