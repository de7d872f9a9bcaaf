package markdown

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A Docsy page styles its card panes with a <style> block: the site runs
// the CSS and shows none of it, so no chunk (no answer) quotes it, and a
// <script> block's code goes the same way. The text around them stays.
func TestStyleBlocksAreNotText(t *testing.T) {
	book := fstest.MapFS{
		"hugo.toml":                 {Data: []byte("title = \"Docs Guide\"\ntheme = \"docsy\"\n")},
		"content/en/_index.md":      {Data: []byte("---\ntitle: Docs Guide\n---\n\nWelcome.\n")},
		"content/en/docs/_index.md": {Data: []byte("---\ntitle: Documentation\nweight: 1\n---\n\nStart here.\n")},
		"content/en/docs/cards.md": {Data: []byte(`---
title: Card panes
weight: 2
---

<style>
.td-card-group { margin-bottom: 1rem; }

.td-card .card-body > pre { padding: 0 0 0 .5rem; }
</style>

A card pane lays cards side by side, each with a header and a body.

<script>
document.querySelectorAll(".td-card").forEach(c => c.classList.add("shadow"));
</script>

Cards hold text, code or images.
`)},
	}
	_, chunks, err := Load(t.Context(), book, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range chunks {
		text.WriteString(c.Text + "\n")
	}
	for _, want := range []string{"A card pane lays cards side by side", "Cards hold text, code or images."} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("chunks lack %q:\n%s", want, text.String())
		}
	}
	for _, bad := range []string{"margin-bottom", "padding", "td-card", "querySelectorAll", "style>", "script>"} {
		if strings.Contains(text.String(), bad) {
			t.Errorf("chunks quote %q:\n%s", bad, text.String())
		}
	}
}
