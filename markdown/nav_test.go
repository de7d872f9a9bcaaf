package markdown

import (
	"reflect"
	"testing"
	"testing/fstest"
)

// The top level of the navigation is the site's: the root's index page
// first, then root pages and top folders by position and then name
// (naturally), a top folder that is no module listing its modules in its
// place.
func TestTreeNav(t *testing.T) {
	page := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	book := fstest.MapFS{
		"appendix.md":                     page("---\nsidebar_position: 3\n---\n# Appendix\n\nTables.\n"),
		"index.md":                        page("# Home\n\nWelcome.\n"),
		"early.md":                        page("---\nsidebar_position: 1\n---\n# Early\n\nFirst things.\n"),
		"part-10/a.md":                    page("# Ten\n\nText.\n"),
		"part-9/a.md":                     page("# Nine\n\nText.\n"),
		"guide/_category_.json":           page(`{"position": 2}`),
		"guide/tools/a.md":                page("# Tools\n\nText.\n"),
		"guide/materials/a.md":            page("# Materials\n\nText.\n"),
		"guide/materials/_category_.json": page(`{"position": 1}`),
	}
	tree, err := ReadTree(t.Context(), book, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tree.Nav {
		if e.Chapter != nil {
			got = append(got, "page "+e.Chapter.File)
		} else {
			got = append(got, "module "+e.Module.ID)
		}
	}
	want := []string{"page index.md", "page early.md", "module guide/materials", "module guide/tools", "page appendix.md", "module part-9", "module part-10"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("navigation %q, want %q", got, want)
	}
}
