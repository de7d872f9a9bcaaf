package markdown

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

func TestConfigTitle(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"classic js", `// @ts-check
/** @type {import('@docusaurus/types').Config} */
const config = {
  title: 'Robots for Beginners', // the site's name
  tagline: 'Build one',
  url: 'https://example.org',
  baseUrl: '/',
  themeConfig: {
    navbar: { title: 'Robots', logo: { alt: 'logo', src: 'img/logo.svg' } },
    footer: { copyright: ` + "`Copyright ${new Date().getFullYear()}`" + ` },
  },
};
module.exports = config;`, "Robots for Beginners"},
		{"typescript export", `import type {Config} from '@docusaurus/types';
const config: Config = {
  "title": "Deep Learning, Gently",
  favicon: 'img/favicon.ico',
  presets: [['classic', {docs: {sidebarPath: './sidebars.ts'}}]],
};
export default config;`, "Deep Learning, Gently"},
		{"navbar object first", `const navbar = { title: 'Short' };
export default { tagline: 'x', baseUrl: '/', title: "The Long Name", themeConfig: { navbar } };`, "The Long Name"},
		{"constant", `const courseTitle = "Signals & Systems";
module.exports = { title: courseTitle, url: 'https://x', baseUrl: '/' };`, "Signals & Systems"},
		{"escapes", `module.exports = { title: 'Ada\'s \u00C9cole\x21', baseUrl: '/' };`, "Ada's École!"},
		{"template", "export default { title: `Plain Template`, baseUrl: '/' };", "Plain Template"},
		{"substitution is not read", "export default { title: `${name} Course`, baseUrl: '/' };", ""},
		{"an expression is not read", "export default { title: 'A' + suffix, baseUrl: '/' };", ""},
		{"a property is not read", "export default { title: site.title, baseUrl: '/' };", ""},
		{"comments are not keys", `/* title: 'Commented' */
// title: 'Also commented'
module.exports = { tagline: 'title: "in a string"', baseUrl: '/' };`, ""},
		{"no config", ``, ""},
		{"unclosed", `module.exports = { title: 'Never closed`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ConfigTitle([]byte(tt.src)); got != tt.want {
				t.Errorf("ConfigTitle = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReadSiteTitle(t *testing.T) {
	site := t.TempDir()
	if got := ReadSiteTitle(site); got != "" {
		t.Errorf("no config: %q", got)
	}
	os.WriteFile(filepath.Join(site, "docusaurus.config.js"), []byte(`module.exports = {title: 'From JS', baseUrl: '/'};`), 0o644)
	if got := ReadSiteTitle(site); got != "From JS" {
		t.Errorf("js config: %q", got)
	}
	os.WriteFile(filepath.Join(site, "docusaurus.config.ts"), []byte(`export default {title: 'From TS', baseUrl: '/'};`), 0o644)
	if got := ReadSiteTitle(site); got != "From TS" {
		t.Errorf("ts config beside js: %q, want the ts one", got)
	}
	if err := os.Remove(filepath.Join(site, "docusaurus.config.ts")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(site, "docusaurus.config.ts")); err == nil {
		if got := ReadSiteTitle(site); got != "From JS" {
			t.Errorf("a linked config is not read: got %q, want the js one", got)
		}
	}
	if got := SiteTitle(fstest.MapFS{"docusaurus.config.mjs": {Data: []byte(`export default {title: "In FS", baseUrl: "/"}`)}}); got != "In FS" {
		t.Errorf("SiteTitle = %q", got)
	}
}

func TestRootPageTitle(t *testing.T) {
	page := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	tests := []struct {
		name string
		book fstest.MapFS
		want string
	}{
		{"front matter", fstest.MapFS{"index.md": page("---\ntitle: Control Systems\n---\n\n# Hello\n")}, "Control Systems"},
		{"generic front matter, heading", fstest.MapFS{"intro.md": page("---\ntitle: Welcome\n---\n\n# Welcome to Physical Robotics!\n")}, "Physical Robotics"},
		{"welcome to the", fstest.MapFS{"intro.md": page("# Welcome to the Robotics Textbook\n")}, "Robotics Textbook"},
		{"only generic", fstest.MapFS{"intro.md": page("# Introduction\n\nText.\n")}, ""},
		{"README", fstest.MapFS{"README.md": page("# Machine Learning for All\n")}, "Machine Learning for All"},
		{"index before intro", fstest.MapFS{"intro.mdx": page("# Intro Name\n"), "index.md": page("# Index Name\n")}, "Index Name"},
		{"no root page", fstest.MapFS{"ch1/a.md": page("# Chapter\n")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RootPageTitle(tt.book); got != tt.want {
				t.Errorf("RootPageTitle = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFolderTitle(t *testing.T) {
	for dir, want := range map[string]string{
		"/srv/books/humanoid-robotics-textbook": "Humanoid robotics textbook",
		"/home/ann/signals_course/docs":         "Signals course",
		"relative/ml":                           "Ml",
		"/src/nlp-course/chapters/en":           "Nlp course",
		"/src/nlp-course/docs/fr":               "Nlp course",
		"/":                                     "Textbook",
	} {
		if got := FolderTitle(dir); got != want {
			t.Errorf("FolderTitle(%q) = %q, want %q", dir, got, want)
		}
	}
}

func TestReadBookTomlTitle(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ toml, want string }{
		{"", ""},
		{"[book]\ntitle = \"The Rust Programming Language\"\nsrc = \"src\"\n", "The Rust Programming Language"},
		{"[book]\nauthors = [\"A\"]\n", ""},
		{"[book]\ntitle = \"Welcome\"\n", ""},
		{"[book\ntitle = ", ""},
	}
	for _, tt := range tests {
		os.Remove(filepath.Join(dir, "book.toml"))
		if tt.toml != "" {
			os.WriteFile(filepath.Join(dir, "book.toml"), []byte(tt.toml), 0o644)
		}
		if got := ReadBookTomlTitle(dir); got != tt.want {
			t.Errorf("book.toml %q: title %q, want %q", tt.toml, got, tt.want)
		}
	}
	if got := ReadBookTomlTitle(filepath.Join("testdata", "mdbook")); got != "The Fixture Book" {
		t.Errorf("fixture book: %q", got)
	}
}
