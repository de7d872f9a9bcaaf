package markdown

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// A SUMMARY.md of links to folders (the nav of MkDocs' literate-nav
// plugin) is navigation, never a page: with the plugin it orders the
// book, even beside a nav in mkdocs.yml (the plugin ignores that one);
// without it, it is left out with a warning and the folders' pages are
// read.
func TestFolderNavIsNoPage(t *testing.T) {
	withPages := func(fsys fstest.MapFS, base string) fstest.MapFS {
		fsys[base+"index.md"] = &fstest.MapFile{Data: []byte("# Home\n\nWelcome to the book.\n")}
		fsys[base+"guide/a.md"] = &fstest.MapFile{Data: []byte("# A\n\nGuide words about robots.\n")}
		fsys[base+"guide/b.md"] = &fstest.MapFile{Data: []byte("# B\n\nMore guide words.\n")}
		fsys[base+"reference/c.md"] = &fstest.MapFile{Data: []byte("# C\n\nReference words.\n")}
		fsys[base+"SUMMARY.md"] = &fstest.MapFile{Data: []byte("* [Reference](reference/)\n* [Guide](guide/)\n")}
		return fsys
	}
	const plugin = "site_name: L\nplugins:\n  - literate-nav\n"
	tests := []struct {
		name  string
		fsys  fstest.MapFS
		order []string // the chapters, in order (those at the root first)
		warn  string   // a warning that must be given, "" for none
	}{
		{"literate-nav", withPages(fstest.MapFS{"mkdocs.yml": {Data: []byte(plugin)}}, "docs/"),
			[]string{"docs/index", "docs/reference/c", "docs/guide/a", "docs/guide/b"}, ""},
		{"literate-nav beside a nav in mkdocs.yml", withPages(fstest.MapFS{"mkdocs.yml": {Data: []byte(plugin + "nav:\n  - index.md\n  - Guide: guide/\n")}}, "docs/"),
			[]string{"docs/index", "docs/reference/c", "docs/guide/a", "docs/guide/b"}, ""},
		{"MkDocs without the plugin", withPages(fstest.MapFS{"mkdocs.yml": {Data: []byte("site_name: L\n")}}, "docs/"),
			[]string{"docs/index", "docs/guide/a", "docs/guide/b", "docs/reference/c"}, "docs/SUMMARY.md: skipped: a nav of links to folders"},
		{"no config", withPages(fstest.MapFS{}, ""),
			[]string{"index", "guide/a", "guide/b", "reference/c"}, "SUMMARY.md: skipped: a nav of links to folders"},
		{"a docs folder alone", withPages(fstest.MapFS{}, "docs/"),
			[]string{"docs/index", "docs/guide/a", "docs/guide/b", "docs/reference/c"}, "docs/SUMMARY.md: skipped: a nav of links to folders"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, warned := loadWarned(t, tt.fsys)
			var order []string
			for _, c := range chunks {
				if !slices.Contains(order, c.ChapterPath) {
					order = append(order, c.ChapterPath)
				}
			}
			if !slices.Equal(order, tt.order) {
				t.Errorf("chapters %q, want %q", order, tt.order)
			}
			if tt.warn != "" && !slices.ContainsFunc(warned, func(w string) bool { return strings.HasPrefix(w, tt.warn) }) {
				t.Errorf("no warning %q in %q", tt.warn, warned)
			}
		})
	}
}
