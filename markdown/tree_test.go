package markdown

import (
	"strings"
	"testing"
	"testing/fstest"
)

// nestedBook is shaped like many Docusaurus sites: one top folder holds
// the module folders, names carry number prefixes, two modules have a
// page with the same front-matter id.
func nestedBook() fstest.MapFS {
	page := func(fm, body string) *fstest.MapFile {
		if fm != "" {
			body = "---\n" + fm + "\n---\n" + body
		}
		return &fstest.MapFile{Data: []byte(body)}
	}
	return fstest.MapFS{
		"13-Course/README.md":                 page("", "# The Course\n\nAn overview of the course and its modules, long enough to be read.\n"),
		"13-Course/01-nervous/README.md":      page("", "# Module 1: Nervous System\n\nWhat module one covers.\n"),
		"13-Course/01-nervous/01-basics.md":   page("id: basics\ntitle: Basics\nsidebar_position: 1", "## Nodes\n\nA node is a process.\n"),
		"13-Course/01-nervous/05-capstone.md": page("id: capstone-project\nsidebar_position: 5", "# Capstone One\n\n## Design\n\nDesign a robot.\n"),
		"13-Course/02-senses/README.md":       page("", "# Module 2: Senses\n\nWhat module two covers.\n"),
		"13-Course/02-senses/05-capstone.md":  page("id: capstone-project", "# Capstone Two\n\n## Design\n\nDesign a sensor rig.\n"),
		"13-Course/02-senses/lidar.md":        page("slug: /hardware/lidar", "# Lidar\n\n## Range\n\nLidar measures range.\n"),
		"13-Course/02-senses/camera.md":       page("slug: cams", "# Camera\n\n## Pixels\n\nA camera counts light.\n"),
		"13-Course/02-senses/_category_.json": {Data: []byte(`{"label": "Senses", "position": 0}`)},
	}
}

func TestNestedModules(t *testing.T) {
	book, chunks := load(t, nestedBook(), DefaultOptions())
	var mods []string
	for _, m := range book.Modules {
		mods = append(mods, m.ID+"="+m.Title)
	}
	// The top folder holds only its index page: not a module. The
	// category position puts Senses first.
	want := "13-Course/02-senses=Senses,13-Course/01-nervous=Module 1: Nervous System"
	if got := strings.Join(mods, ","); got != want {
		t.Errorf("modules %s, want %s", got, want)
	}
	if book.Title != "The Course" {
		t.Errorf("book title %q", book.Title)
	}
	type page struct{ module, chapter, route string }
	got := map[string]page{}
	ids := map[string]string{}
	for _, c := range chunks {
		got[c.ChapterPath] = page{c.ModuleID, c.ChapterID, c.PagePath}
		if other, ok := ids[c.ChapterID]; ok && other != c.ChapterPath {
			t.Errorf("chapter id %s names %s and %s", c.ChapterID, other, c.ChapterPath)
		}
		ids[c.ChapterID] = c.ChapterPath
	}
	tests := map[string]page{
		"13-Course/README":                 {"", "13-Course/README", "Course"},
		"13-Course/01-nervous/README":      {"13-Course/01-nervous", "13-Course/01-nervous/README", "Course/nervous"},
		"13-Course/01-nervous/01-basics":   {"13-Course/01-nervous", "13-Course/01-nervous/basics", "Course/nervous/basics"},
		"13-Course/01-nervous/05-capstone": {"13-Course/01-nervous", "13-Course/01-nervous/capstone-project", "Course/nervous/capstone-project"},
		"13-Course/02-senses/05-capstone":  {"13-Course/02-senses", "13-Course/02-senses/capstone-project", "Course/senses/capstone-project"},
		"13-Course/02-senses/lidar":        {"13-Course/02-senses", "13-Course/02-senses/lidar", "hardware/lidar"},
		"13-Course/02-senses/camera":       {"13-Course/02-senses", "13-Course/02-senses/camera", "Course/senses/cams"},
	}
	for p, want := range tests {
		if got[p] != want {
			t.Errorf("%s: %+v, want %+v", p, got[p], want)
		}
	}
}

func TestTreeOrderAndIndex(t *testing.T) {
	tree, err := ReadTree(t.Context(), nestedBook(), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, c := range tree.Chapters {
		order = append(order, c.Path)
	}
	want := []string{
		"13-Course/README",
		"13-Course/02-senses/README", "13-Course/02-senses/05-capstone", "13-Course/02-senses/camera", "13-Course/02-senses/lidar",
		"13-Course/01-nervous/README", "13-Course/01-nervous/01-basics", "13-Course/01-nervous/05-capstone",
	}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("book order\n%v\nwant\n%v", order, want)
	}
	if m := tree.Modules[1]; m.Index == nil || m.Index.Path != "13-Course/01-nervous/README" {
		t.Errorf("module %s index %+v", m.ID, m.Index)
	}
}

// Two pages with one id in one folder (Docusaurus refuses to build such
// a site) keep distinct ids, with a warning.
func TestDuplicateIDs(t *testing.T) {
	w := warnings{}
	book := fstest.MapFS{
		"m/a.md": {Data: []byte("---\nid: same\n---\n# A\n\nText a.\n")},
		"m/b.md": {Data: []byte("---\nid: same\n---\n# B\n\nText b.\n")},
	}
	_, chunks, err := Load(t.Context(), book, w.opts())
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, c := range chunks {
		ids[c.ChapterID] = true
	}
	if len(ids) != 2 || !strings.Contains(w["m/b.md"], `"m/same" is taken`) {
		t.Errorf("ids %v, warning %q", ids, w["m/b.md"])
	}
	// The fallback, a file path, can itself be taken: by a slug.
	book = fstest.MapFS{
		"m/a.md": {Data: []byte("---\nslug: b\n---\n# A\n\nText a.\n")},
		"m/b.md": {Data: []byte("# B\n\nText b.\n")},
		"m/c.md": {Data: []byte("---\nslug: /m/b\n---\n# C\n\nText c.\n")},
	}
	_, chunks, err = Load(t.Context(), book, w.opts())
	if err != nil {
		t.Fatal(err)
	}
	checkChunks(t, chunks)
}

func TestStripNumberPrefix(t *testing.T) {
	tests := map[string]string{
		"01-intro":          "intro",
		"13-Physical-AI":    "Physical-AI",
		"2. Setup":          "Setup",
		"chapter-2-topics":  "chapter-2-topics",
		"2021-01-05-post":   "2021-01-05-post",
		"1.2.3-release":     "1.2.3-release",
		"05-capstone.notes": "capstone.notes",
		"42":                "42",
	}
	for in, want := range tests {
		if got := stripNumberPrefix(in); got != want {
			t.Errorf("stripNumberPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}
