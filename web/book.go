package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	chunker "github.com/textbook-rag/rag/markdown"
	"html/template"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// book is the reader's view of a Docusaurus-style docs tree: top-level
// folders are modules, Markdown files are chapters.
type book struct {
	// items is the navigation in book order: root chapters and modules.
	items    []navItem
	chapters []*chapter          // every chapter in book order
	byRoute  map[string]*chapter // "module/chapter" or "chapter"
	byFile   map[string]*chapter // file path under the root, with extension
	modules  map[string]*module
}

// navItem is one entry of the top level of the navigation: a root
// chapter or a module.
type navItem struct {
	Chapter *chapter
	Module  *module
}

type module struct {
	ID       string // folder name
	Title    string
	position float64
	Chapters []*chapter
}

// isIndex reports a module's index page (index.md or README.md, as in
// Docusaurus), which introduces the module.
func (c *chapter) isIndex() bool {
	stem := strings.TrimSuffix(path.Base(c.File), path.Ext(c.File))
	return c.ID == "index" || stem == "index" || stem == "README"
}

type chapter struct {
	ModuleID string // "" for a chapter at the book root
	ID       string // front-matter id or file stem
	Title    string
	Label    string // sidebar label
	File     string // path under the book root
	URL      string // "/docs/module/chapter"
	position float64
	source   []byte // Markdown with front matter and MDX syntax removed
	HTML     template.HTML
	hasH1    bool // the Markdown has its own H1
}

// route is the chapter's key under /docs/.
func (c *chapter) route() string {
	if c.ModuleID == "" {
		return c.ID
	}
	return c.ModuleID + "/" + c.ID
}

const noPosition = 1e9

// loadBook reads every .md and .mdx file of fsys. Files in nested folders
// belong to their top-level folder's module.
func loadBook(fsys fs.FS) (*book, error) {
	b := &book{byRoute: map[string]*chapter{}, byFile: map[string]*chapter{}, modules: map[string]*module{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		ext := path.Ext(name)
		if ext != ".md" && ext != ".mdx" || strings.HasPrefix(name, "_") {
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // links, FIFOs and devices are not pages (ingest warns of them)
		}
		raw, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("read chapter %s: %w", p, err)
		}
		c := parseChapter(p, raw)
		if other, ok := b.byRoute[c.route()]; ok {
			return fmt.Errorf("chapters %s and %s both have the route /docs/%s", other.File, p, c.route())
		}
		b.byRoute[c.route()] = c
		b.byFile[p] = c
		if c.ModuleID != "" {
			m := b.modules[c.ModuleID]
			if m == nil {
				m, err = loadModule(fsys, c.ModuleID)
				if err != nil {
					return err
				}
				b.modules[c.ModuleID] = m
			}
			m.Chapters = append(m.Chapters, c)
		} else {
			b.items = append(b.items, navItem{Chapter: c})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, m := range b.modules {
		sort.SliceStable(m.Chapters, func(i, j int) bool { return lessChapter(m.Chapters[i], m.Chapters[j]) })
		if m.Title == "" {
			m.Title = m.ID
			for _, c := range m.Chapters {
				if c.isIndex() {
					m.Title = c.Title
				}
			}
		}
		b.items = append(b.items, navItem{Module: m})
	}
	sort.SliceStable(b.items, func(i, j int) bool {
		pi, ni := b.items[i].sortKey()
		pj, nj := b.items[j].sortKey()
		if pi != pj {
			return pi < pj
		}
		return naturalLess(ni, nj)
	})
	for _, it := range b.items {
		if it.Chapter != nil {
			b.chapters = append(b.chapters, it.Chapter)
		} else {
			b.chapters = append(b.chapters, it.Module.Chapters...)
		}
	}
	for _, c := range b.chapters {
		if err := b.render(c); err != nil {
			return nil, fmt.Errorf("render %s: %w", c.File, err)
		}
	}
	return b, nil
}

func (it navItem) sortKey() (float64, string) {
	if it.Chapter != nil {
		return it.Chapter.position, path.Base(it.Chapter.File)
	}
	return it.Module.position, it.Module.ID
}

func lessChapter(a, b *chapter) bool {
	if a.position != b.position {
		return a.position < b.position
	}
	return naturalLess(a.File, b.File)
}

// naturalLess orders "chapter-2" before "chapter-10".
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := leadingDigits(a), leadingDigits(b)
		if da != "" && db != "" {
			na, _ := strconv.Atoi(da)
			nb, _ := strconv.Atoi(db)
			if na != nb {
				return na < nb
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// loadModule reads a module folder's _category_.json (label, position)
// when there is one.
func loadModule(fsys fs.FS, id string) (*module, error) {
	m := &module{ID: id, position: noPosition}
	raw, err := fs.ReadFile(fsys, path.Join(id, "_category_.json"))
	if err != nil {
		return m, nil // no category file: the folder name or index title
	}
	var cat struct {
		Label    string   `json:"label"`
		Position *float64 `json:"position"`
	}
	if err := json.Unmarshal(raw, &cat); err != nil {
		return nil, fmt.Errorf("read %s/_category_.json: %w", id, err)
	}
	m.Title = cat.Label
	if cat.Position != nil {
		m.position = *cat.Position
	}
	return m, nil
}

func parseChapter(file string, raw []byte) *chapter {
	fm, body := splitFrontMatter(raw)
	stem := strings.TrimSuffix(path.Base(file), path.Ext(file))
	c := &chapter{File: file, ID: stem, position: noPosition}
	if dir := path.Dir(file); dir != "." {
		c.ModuleID = strings.SplitN(dir, "/", 2)[0]
	}
	if id := fm["id"]; id != "" && !strings.Contains(id, "/") {
		c.ID = id
	}
	c.Title = fm["title"]
	if p, err := strconv.ParseFloat(fm["sidebar_position"], 64); err == nil {
		c.position = p
	}
	c.source = chunker.StripMDX(body)
	if c.Title == "" {
		c.Title = firstH1(c.source)
	}
	if c.Title == "" {
		c.Title = stem
	}
	c.Label = fm["sidebar_label"]
	if c.Label == "" {
		c.Label = c.Title
	}
	c.URL = "/docs/" + c.route()
	return c
}

// splitFrontMatter separates a leading "---" YAML block and reads its
// top-level scalar keys.
func splitFrontMatter(raw []byte) (map[string]string, []byte) {
	fm := map[string]string{}
	raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
	s := strings.ReplaceAll(string(raw), "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return fm, []byte(s)
	}
	end := strings.Index(s[4:], "\n---")
	if end < 0 {
		return fm, []byte(s)
	}
	block := s[4 : 4+end]
	rest := s[4+end+4:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[i+1:]
	} else {
		rest = ""
	}
	for _, line := range strings.Split(block, "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		fm[strings.TrimSpace(k)] = yamlScalar(strings.TrimSpace(v))
	}
	return fm, []byte(rest)
}

func yamlScalar(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		if s, err := strconv.Unquote(v); err == nil {
			return s
		}
		return v[1 : len(v)-1]
	}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v
}

var (
	fenceOpen = regexp.MustCompile("^\\s{0,3}(`{3,}|~{3,})")
	h1Line    = regexp.MustCompile(`^#\s+(.+?)(?:\s+\{#[^}]*\})?\s*#*\s*$`)
)

func firstH1(src []byte) string {
	fence := false
	for _, line := range strings.Split(string(src), "\n") {
		if fenceOpen.MatchString(line) {
			fence = !fence
			continue
		}
		if m := h1Line.FindStringSubmatch(line); m != nil && !fence {
			return strings.TrimSpace(m[1])
		}
	}
	return ""
}

// HasH1 reports whether the chapter's Markdown has its own title heading.
func (c *chapter) HasH1() bool { return c.hasH1 }
