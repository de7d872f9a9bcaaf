package markdown

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A Quarto include or an R Markdown child chunk that leads out of the
// book is named in a warning; one inside it is not.
func TestQuartoAndChildIncludesOutsideWarn(t *testing.T) {
	book := fstest.MapFS{
		"_quarto.yml": {Data: []byte("project:\n  type: book\nbook:\n  chapters:\n    - index.qmd\n    - parts/a.qmd\n")},
		"index.qmd":   {Data: []byte("# Home\n\n{{< include ../../secrets.qmd >}}\n\n{{< include _common.qmd >}}\n\nGears turn wheels.\n")},
		"parts/a.qmd": {Data: []byte("# A\n\n```{r, child='../../outside.Rmd'}\n```\n\n```{r child=\"../index.qmd\"}\n```\n\nText.\n")},
	}
	w := &warnLog{}
	if _, err := ReadTree(t.Context(), book, w.opts()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"index.qmd: {{< include ../../secrets.qmd >}} left out: ../../secrets.qmd leads out of the book",
		"parts/a.qmd: the child chunk of ../../outside.Rmd left out: ../../outside.Rmd leads out of the book",
	} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("no warning %q in:\n%s", want, w)
		}
	}
	if n := strings.Count(w.String(), "leads out of the book"); n != 2 {
		t.Errorf("%d warnings of includes leading out, want 2:\n%s", n, w)
	}
}

// Jekyll's Liquid include tags are the site's, not text: they go from a
// Jekyll page's prose, and stay as written in its code blocks.
func TestJekyllIncludeTagsGo(t *testing.T) {
	book := fstest.MapFS{
		"_config.yml": {Data: []byte("title: Gears\ncollections:\n  notes:\n    output: true\n")},
		"index.md": {Data: []byte("---\nlayout: home\n---\n# Home\n\n{% include gear-table.html %}\n\n" +
			"Gears turn wheels {%- include_relative note.html -%} slowly.\n\n```liquid\n{% include shown.html %}\n```\n")},
	}
	tree, err := ReadTree(t.Context(), book, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	body := string(tree.Chapters[0].Body)
	if strings.Contains(body, "gear-table") || strings.Contains(body, "note.html") {
		t.Errorf("Liquid include tags left in the text:\n%s", body)
	}
	if !strings.Contains(body, "Gears turn wheels  slowly.") || !strings.Contains(body, "{% include shown.html %}") {
		t.Errorf("the text or the code block changed:\n%s", body)
	}
}
