package markdown

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/textbook-rag/rag/markdown/page"
)

func TestReadLayoutTitle(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		dir   string // the book folder under the temporary one
		want  string
	}{
		{"MkDocs site_name", map[string]string{"mkdocs.yml": "site_name: Soil Physics\nnav:\n  - index.md\n"}, ".", "Soil Physics"},
		{"MkDocs above its docs folder", map[string]string{"mkdocs.yml": "site_name: Soil Physics\n", "docs/index.md": "# Home"}, "docs", "Soil Physics"},
		{"MkDocs with Python tags", map[string]string{"mkdocs.yml": "site_name: Tagged\nmarkdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"}, ".", "Tagged"},
		{"Jupyter Book title", map[string]string{"_config.yml": "title: Applied Econometrics\nauthor: A. N. Author\n", "_toc.yml": "root: intro\n"}, ".", "Applied Econometrics"},
		{"Quarto book.title", map[string]string{"_quarto.yml": "project:\n  type: book\nbook:\n  title: \"Field Ecology\"\n  chapters:\n    - index.qmd\n"}, ".", "Field Ecology"},
		{"bookdown book_title", map[string]string{"_bookdown.yml": "book_title: Cell Biology Notes\nrmd_files: [index.Rmd]\n"}, ".", "Cell Biology Notes"},
		{"Jupyter Book 2 project.title", map[string]string{"myst.yml": "version: 1\nproject:\n  title: Orbital Mechanics\n  toc:\n    - file: index.md\n"}, ".", "Orbital Mechanics"},
		{"Hugo title", map[string]string{"hugo.toml": "baseURL = \"https://example.org/\"\ntitle = \"Pond Life\"\n"}, ".", "Pond Life"},
		{"Hugo config.yaml", map[string]string{"config.yaml": "title: Pond Life\n", "content/_index.md": "# Home"}, ".", "Pond Life"},
		{"Hugo config folder", map[string]string{"config/_default/hugo.yaml": "baseURL: https://example.org/\ntitle: Tide Pools\n", "README.md": "# Stray notes", "content/en/_index.md": "# Home"}, ".", "Tide Pools"},
		{"Hugo config folder, the default language's title", map[string]string{"config/_default/hugo.toml": "defaultContentLanguage = \"de\"\n",
			"config/_default/languages.toml": "[en]\ntitle = \"Rock Pools\"\n[de]\ntitle = \"Gezeitentümpel\"\n"}, ".", "Gezeitentümpel"},
		{"Sphinx project", map[string]string{"docs/conf.py": "import os\nproject = 'Glass Blowing'\n"}, ".", "Glass Blowing"},
		{"generic title is no name", map[string]string{"_config.yml": "title: Documentation\n"}, ".", ""},
		{"broken YAML names nothing", map[string]string{"mkdocs.yml": "site_name: [unclosed\n"}, ".", ""},
		{"none", map[string]string{"index.md": "# Home"}, ".", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tt.files {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := ReadLayoutTitle(filepath.Join(dir, tt.dir)); got != tt.want {
				t.Errorf("ReadLayoutTitle = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRootPageTitleOfBookdown(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.Rmd"), []byte("---\ntitle: \"Plant Physiology\"\nsite: bookdown::bookdown_site\n---\n\n# Preface {-}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := RootPageTitle(os.DirFS(dir)); got != "Plant Physiology" {
		t.Errorf("RootPageTitle = %q, want the index.Rmd title", got)
	}
}

// A front-matter value that is a YAML alias stands for the anchored value
// it names, never for its own spelling; an anchor's name is no part of
// its value.
func TestFrontMatterAliases(t *testing.T) {
	tests := []struct {
		name, src, key, want string
	}{
		{"alias of an anchored title", "---\nsidebar_label: &b9 Gear Trains\ntitle: *b9\n---\n# Body\n", "title", "Gear Trains"},
		{"anchored title", "---\ntitle: &t \"Gear Trains\"\n---\n", "title", "Gear Trains"},
		{"alias of nothing", "---\ntitle: *b9\n---\n# Gears\n", "title", ""},
		{"a star inside a title", "---\ntitle: Gears *and* wheels\n---\n", "title", "Gears *and* wheels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, _ := page.SplitFrontMatter([]byte(tt.src))
			if got := fm[tt.key]; got != tt.want {
				t.Errorf("%s = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
	if c := newChapter("a.md", []byte("---\ntitle: *b9\n---\n# Gears\n\nText.\n"), "", page.Vars{}); c.Title != "Gears" {
		t.Errorf("a page titled by an alias of nothing: title %q, want its heading", c.Title)
	}
}
