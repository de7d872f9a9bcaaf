package markdown

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// writeFiles writes files (by slash path) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// One read gives a book's name, its pages in the site's order and the
// layout's warnings, in each kind of place a course's name comes from.
func TestReadSite(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // under the site's folder
		book  string            // the book's folder under it
		title string
		order []string // the pages, in book order
		warn  string   // a layout warning kept, "" for none
	}{
		{"Docusaurus site above the docs", map[string]string{
			"docusaurus.config.js":  "module.exports = {title: 'Pond Keeping', baseUrl: '/'};",
			"docs/intro.md":         "# Welcome\n\nPonds hold water.\n",
			"docs/02-pumps/b.md":    "# Pumps B\n\nA pump moves water.\n",
			"docs/01-liners/a.md":   "# Liners A\n\nA liner keeps water in.\n",
			"docs/_partials/tip.md": "A partial.\n",
		}, "docs", "Pond Keeping", []string{"intro.md", "01-liners/a.md", "02-pumps/b.md"}, "_partials: skipped"},
		{"mdBook's book.toml", map[string]string{
			"book/book.toml":       "[book]\ntitle = \"Gears and Levers\"\n",
			"book/src/SUMMARY.md":  "# Summary\n\n- [Levers](levers.md)\n- [Gears](gears.md)\n- [Missing](missing.md)\n",
			"book/src/gears.md":    "# Gears\n\nGears turn.\n",
			"book/src/levers.md":   "# Levers\n\nLevers lift.\n",
			"docusaurus.config.js": "module.exports = {title: 'Not This Site', baseUrl: '/'};",
		}, "book", "Gears and Levers", []string{"src/levers.md", "src/gears.md"}, "src/SUMMARY.md: lists \"missing.md\""},
		{"root page", map[string]string{
			"notes/index.md": "# Soil Physics\n\nSoil holds water.\n",
			"notes/clay.md":  "# Clay\n\nClay is fine.\n",
		}, "notes", "Soil Physics", []string{"index.md", "clay.md"}, ""},
		{"folder name", map[string]string{
			"tide-pools/docs/a.md": "# Anemones\n\nThey sting.\n",
		}, "tide-pools/docs", "Tide pools", []string{"a.md"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, tt.files)
			var told []string
			opts := DefaultOptions()
			opts.Warn = func(p string, err error) { told = append(told, p+": "+err.Error()) }
			s, err := ReadSite(t.Context(), Source{Dir: filepath.Join(root, filepath.FromSlash(tt.book))}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if s.Title != tt.title {
				t.Errorf("title %q, want %q", s.Title, tt.title)
			}
			var order []string
			for _, c := range s.Tree.Chapters {
				order = append(order, c.File)
			}
			if !reflect.DeepEqual(order, tt.order) {
				t.Errorf("pages %q, want %q", order, tt.order)
			}
			all := strings.Join(s.Warnings, "\n")
			if tt.warn == "" && all != "" || !strings.Contains(all, tt.warn) {
				t.Errorf("warnings %q, want %q", all, tt.warn)
			}
			for _, w := range s.Warnings {
				if !strings.Contains(strings.Join(told, "\n"), w) {
					t.Errorf("warning %q kept but not told", w)
				}
			}
			// The chunks are the book's as Load cuts it from the same files.
			_, got, err := s.Chunks(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			_, want, err := Load(t.Context(), s.Files, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("chunks differ from Load's:\n%+v\n%+v", got, want)
			}
		})
	}
}

// A book held in memory is named by its site's config, else by its root
// page, else by the name it is given.
func TestReadSiteInMemory(t *testing.T) {
	docs := fstest.MapFS{"intro.md": {Data: []byte("# Introduction\n\nRobots sense.\n")}}
	site := fstest.MapFS{"docusaurus.config.js": {Data: []byte("module.exports = {title: 'Robots 101', baseUrl: '/'};")}}
	for _, tt := range []struct {
		src  Source
		want string
	}{
		{Source{FS: docs, Site: site, Name: "Sample"}, "Robots 101"},
		{Source{FS: docs, Name: "Sample"}, "Sample"},
		{Source{FS: fstest.MapFS{"index.md": {Data: []byte("# Field Robotics\n")}}, Name: "Sample"}, "Field Robotics"},
	} {
		s, err := ReadSite(t.Context(), tt.src, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Title != tt.want {
			t.Errorf("title %q, want %q", s.Title, tt.want)
		}
	}
}

// A folder without a page to read is an error that names the folder.
func TestReadSiteNoPages(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"notes.txt": "x"})
	_, err := ReadSite(t.Context(), Source{Dir: dir}, Options{})
	if !errors.Is(err, ErrNoChapters) || !strings.HasPrefix(err.Error(), dir+": ") {
		t.Errorf("error %v, want ErrNoChapters after %s", err, dir)
	}
}
