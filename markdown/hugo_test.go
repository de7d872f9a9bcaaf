package markdown

import (
	"os"
	"testing"
)

// TestHugoTopLevelOrder: the reader's page orders the book's top level by
// position (root chapters and top folders together), so a Hugo site's
// top-level sections and root pages carry their rank in Hugo's order:
// docs (weight 20), blog (30), then the one-page community section (40),
// whatever their names.
func TestHugoTopLevelOrder(t *testing.T) {
	tree, err := ReadTree(t.Context(), os.DirFS("testdata/layouts/hugo-sections"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var community *Chapter
	for _, c := range tree.Chapters {
		if c.File == "content/community/_index.md" {
			community = c
		}
	}
	if community == nil || community.ModuleID != "" {
		t.Fatalf("the one-page community section is not a chapter at the book's root: %+v", community)
	}
	docs, blog := tree.FolderPosition("docs"), tree.FolderPosition("blog")
	if !(docs < blog && blog < community.Position) {
		t.Errorf("positions docs %v, blog %v, community %v: want them in the site's order", docs, blog, community.Position)
	}
}

func TestHumanTitle(t *testing.T) {
	for in, want := range map[string]string{"getting-started": "Getting started", "api_reference": "Api reference", "faq": "Faq", "": ""} {
		if got := humanTitle(in); got != want {
			t.Errorf("humanTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
