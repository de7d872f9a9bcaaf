package web_test

import (
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/textbook-rag/rag/markdown"
	"github.com/textbook-rag/rag/sample"
	"github.com/textbook-rag/rag/web"
)

// nestedBook keeps its modules one folder deeper, with number prefixes,
// two pages with one front-matter id, and a slug.
func nestedBook() fstest.MapFS {
	return fstest.MapFS{
		"13-Course/README.md":                 {Data: []byte("# The Course\n\nAn overview.\n")},
		"13-Course/01-nervous/README.md":      {Data: []byte("# Module 1: Nervous System\n\nModule one.\n")},
		"13-Course/01-nervous/05-capstone.md": {Data: []byte("---\nid: capstone-project\n---\n# Capstone One\n\n## Design\n\nDesign a robot.\n")},
		"13-Course/02-senses/README.md":       {Data: []byte("# Module 2: Senses\n\nModule two.\n")},
		"13-Course/02-senses/05-capstone.md":  {Data: []byte("---\nid: capstone-project\n---\n# Capstone Two\n\n## Design\n\nDesign a sensor rig.\n")},
		"13-Course/02-senses/lidar.md":        {Data: []byte("---\nslug: /hardware/lidar\n---\n# Lidar\n\n## Range\n\nLidar measures range. See [capstone](./05-capstone.md#design).\n")},
	}
}

func TestNestedBookPages(t *testing.T) {
	h, err := newPage(nestedBook(), web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{
		"/":                                     "An overview.",
		"/docs/Course/nervous":                  "Module one.",
		"/docs/Course/nervous/capstone-project": "Design a robot.",
		"/docs/Course/senses/capstone-project":  "Design a sensor rig.",
		"/docs/hardware/lidar":                  `href="/docs/Course/senses/capstone-project#design"`,
	}
	for path, want := range tests {
		res, body := get(t, h, path)
		if res.StatusCode != 200 || !strings.Contains(body, want) {
			t.Errorf("%s: %d, want %q in the page", path, res.StatusCode, want)
		}
	}
	_, body := get(t, h, "/docs/Course/senses/capstone-project")
	nav := []string{"The Course", "Module 1: Nervous System", "Module 2: Senses"}
	at := 0
	for _, s := range nav {
		i := strings.Index(body[at:], s)
		if i < 0 {
			t.Fatalf("nav lacks %q in order", s)
		}
		at += i + len(s)
	}
}

// Every source the tutor can give links to a page of the reader's view
// that holds its anchor: both read the book through markdown.ReadTree.
func TestSourcesLinkToPages(t *testing.T) {
	books := map[string]fs.FS{"sample": sample.Docs(), "nested": nestedBook(),
		"docbuilder": os.DirFS("../markdown/testdata/docbuilder"), "mdbook": os.DirFS("../markdown/testdata/mdbook")}
	for _, name := range []string{"physical-ai-textbook", "humanoid-robotics-textbook", "huggingface-course"} {
		dir := filepath.Join("../../shared/corpus", name)
		if _, err := os.Stat(dir); err != nil {
			t.Logf("shared book %s not present (%v): skipped", name, err)
			continue
		}
		books[name] = os.DirFS(dir)
	}
	for name, fsys := range books {
		t.Run(name, func(t *testing.T) {
			_, chunks, err := markdown.Load(t.Context(), fsys, markdown.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			h, err := newPage(fsys, web.Options{})
			if err != nil {
				t.Fatal(err)
			}
			pages := map[string]string{}
			for _, c := range chunks {
				body, ok := pages[c.PagePath]
				if !ok {
					r, b := get(t, h, "/docs/"+c.PagePath)
					if r.StatusCode != 200 {
						t.Errorf("%s: /docs/%s gives %d", c.ChapterPath, c.PagePath, r.StatusCode)
					}
					body, pages[c.PagePath] = b, b
				}
				for _, hd := range c.Headings {
					if hd.Anchor != "" && !strings.Contains(body, `id="`+html.EscapeString(hd.Anchor)+`"`) {
						t.Errorf("%s: the page lacks anchor %q", c.PagePath, hd.Anchor)
					}
				}
			}
		})
	}
}
