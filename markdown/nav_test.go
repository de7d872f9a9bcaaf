package markdown

import (
	"path"
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

// linkTitle is Hugo's menu label: a Hugo site's pages are labelled by it,
// a Docusaurus docs folder's are not (Docusaurus reads sidebar_label).
func TestLinkTitleIsHugos(t *testing.T) {
	page := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	const pump = "---\ntitle: Choosing a pond pump\nlinkTitle: Pumps\n---\n\nA pump moves water.\n"
	for _, tt := range []struct {
		name string
		book fstest.MapFS
		want string
	}{
		{"Hugo", fstest.MapFS{"hugo.toml": page("title = \"Ponds\"\n"), "content/_index.md": page("---\ntitle: Ponds\n---\n\nPonds.\n"), "content/pump.md": page(pump)}, "Pumps"},
		{"Docusaurus", fstest.MapFS{"intro.md": page("# Ponds\n\nPonds.\n"), "pump.md": page(pump)}, "Choosing a pond pump"},
		{"sidebar_label first", fstest.MapFS{"hugo.toml": page("title = \"Ponds\"\n"), "content/_index.md": page("---\ntitle: Ponds\n---\n\nPonds.\n"),
			"content/pump.md": page("---\ntitle: Choosing a pond pump\nlinkTitle: Pumps\nsidebar_label: Pump\n---\n\nA pump moves water.\n")}, "Pump"},
	} {
		tree, err := ReadTree(t.Context(), tt.book, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, c := range tree.Chapters {
			if path.Base(c.File) == "pump.md" {
				got = c.Label
			}
		}
		if got != tt.want {
			t.Errorf("%s: label %q, want %q", tt.name, got, tt.want)
		}
	}
}
