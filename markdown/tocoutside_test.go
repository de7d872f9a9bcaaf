package markdown

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A table of contents entry (or a Jekyll collection) that leads out of
// the book is left out with a warning naming it, in every layout; a web
// address or an anchor is left out without one.
func TestTocEntriesOutsideTheBookWarn(t *testing.T) {
	page := func(title string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("# " + title + "\n\nGears turn wheels.\n")}
	}
	tests := []struct {
		name  string
		book  fstest.MapFS
		warns []string
	}{
		{"Jupyter Book", fstest.MapFS{
			"_toc.yml": {Data: []byte("format: jb-book\nroot: intro\nchapters:\n- file: gears\n- file: ../outside\n- url: https://example.org\n")},
			"intro.md": page("Intro"), "gears.md": page("Gears"),
		}, []string{`"../outside"`}},
		{"Quarto", fstest.MapFS{
			"_quarto.yml": {Data: []byte("project:\n  type: book\nbook:\n  chapters:\n    - index.qmd\n    - ../outside.qmd\n    - /etc/passwd\n")},
			"index.qmd":   page("Home"),
		}, []string{`"../outside.qmd"`, `"/etc/passwd"`}},
		{"bookdown", fstest.MapFS{
			"_bookdown.yml": {Data: []byte("rmd_files: [index.Rmd, ../outside.Rmd]\n")},
			"index.Rmd":     page("Home"),
		}, []string{`"../outside.Rmd"`}},
		{"MkDocs", fstest.MapFS{
			"mkdocs.yml": {Data: []byte("site_name: Gears\ndocs_dir: .\nnav:\n  - index.md\n  - ../a.md\n  - Up: ../../b.md\n  - /c.md\n  - Web: https://example.org\n  - Anchor: '#top'\n")},
			"index.md":   page("Home"),
		}, []string{`"../a.md"`, `"../../b.md"`, `"/c.md"`}},
		{"Sphinx", fstest.MapFS{
			"conf.py":  {Data: []byte("project = \"Gears\"\n")},
			"index.md": {Data: []byte("# Gears\n\n```{toctree}\nteeth\n../../outside\nWeb <https://example.org>\n```\n")},
			"teeth.md": page("Teeth"),
		}, []string{`"../../outside"`}},
		{"Jekyll", fstest.MapFS{
			"_config.yml":     {Data: []byte("title: Gears\ncollections_dir: ../elsewhere\ncollections:\n  notes:\n    output: true\n")},
			"index.md":        {Data: []byte("---\nlayout: home\n---\n# Home\n\nGears turn wheels.\n")},
			"_notes/first.md": {Data: []byte("---\nlayout: page\n---\n# First\n\nA note.\n")},
		}, []string{`collection "notes"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &warnLog{}
			if _, err := ReadTree(t.Context(), tc.book, w.opts()); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.warns {
				if !strings.Contains(w.String(), want) {
					t.Errorf("no warning naming %s:\n%s", want, w)
				}
			}
			out := strings.Count(w.String(), "leads out of the book")
			if out != len(tc.warns) {
				t.Errorf("%d warnings of entries leading out, want %d:\n%s", out, len(tc.warns), w)
			}
		})
	}
}
