package markdown

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/textbook-rag/rag/markdown/page"
)

// Tree is a book as its site shows it (its layout's table of contents,
// else its folders): its modules and chapters in sidebar order, with
// titles, sidebar labels and page paths. The
// chunker and the reader's page both read the book through it.
type Tree struct {
	Title string
	// Hash identifies the book's content (pages and _category_.json).
	Hash string
	// Chapters lists every chapter in book order: the chapters at the
	// book's root first, then each module's.
	Chapters []*Chapter
	// Modules are the folders that hold chapters, at whatever depth, in
	// sidebar order.
	Modules []*Module
	// Nav is the top level of the site's navigation: the chapters at the
	// book's root and the modules, in the order the sidebar shows them
	// (see navigation). The reader's page shows it as it is.
	Nav []Entry

	folders map[string]*folder
}

// Entry is one entry of the top level of the navigation: a chapter at the
// book's root or a module, the other nil.
type Entry struct {
	Chapter *Chapter
	Module  *Module
}

// ErrNoChapters is the error of a book without a page to read.
var ErrNoChapters = errors.New("the book has no chapters: no .md, .mdx, .qmd, .Rmd or .ipynb pages in the folder (a book in .rst is not read)")

// ErrRestructuredText is the error of a book written in reStructuredText
// (a Sphinx site's .rst pages): no maintained Go reader of it fits, and a
// page read half right would be quoted wrong, so the book is refused.
var ErrRestructuredText = errors.New("the book is written in reStructuredText (.rst), which is not read: convert it to MyST Markdown (.md), as Sphinx's MyST parser reads it")

// FolderPosition is a folder's sidebar position (its _category_.json
// position, its index page's, or its number prefix); folders without one
// come last.
func (t *Tree) FolderPosition(dir string) float64 {
	if f := t.folders[dir]; f != nil {
		return f.position
	}
	return noPosition
}

// Module is a folder of the book that holds chapters.
type Module struct {
	ID       string // the folder's path under the book root
	Route    string // the folder's page path: its names without number prefixes
	Title    string // _category_.json label, else the index page's title, else the folder name
	Position float64
	// Index is the page that introduces the module (index.md, README.md
	// or a page named like the folder), nil when it has none.
	Index    *Chapter
	Chapters []*Chapter // the index first, then by sidebar position and name
}

// Chapter is one page of the book.
type Chapter struct {
	File string // path under the book root, with extension
	// Path is File without its extension ("module-2/chapter-2-topics"):
	// what the evaluation's gold_chapter names.
	Path string
	// ID is unique in the book: the folder's path and the page's
	// Docusaurus id (front-matter id, else the file name without its
	// number prefix).
	ID string
	// Route is the page's path under the site's docs URL, as Docusaurus
	// builds it: front-matter slug, else folders and id without number
	// prefixes; a folder's index page has the folder's path.
	Route    string
	ModuleID string // "" for a chapter at the book root
	Title    string // front-matter title, else the first # heading, else the file name
	Label    string // sidebar label, else the title
	Position float64
	IsIndex  bool // the index page of its folder
	// Body is the page's Markdown without front matter and MDX syntax,
	// with clean line endings.
	Body []byte

	page *page.Page
	dir  string // folder, "" at the root (for an mdBook in src/, under src)
}

const noPosition = 1e9

// ReadTree reads a book's structure and pages.
func ReadTree(ctx context.Context, fsys fs.FS, opts Options) (*Tree, error) {
	opts = opts.withDefaults()
	l, err := walkBook(ctx, fsys, opts)
	if err != nil {
		return nil, err
	}
	sort.Strings(l.pages)
	hash := sha256.New()
	lay, err := readLayout(fsys, &l, hash, opts)
	if err != nil {
		return nil, err
	}
	switch {
	case len(l.pages) == 0 && len(l.rst) > 0:
		return nil, fmt.Errorf("%w (%d .rst pages: %s)", ErrRestructuredText, len(l.rst), someOf(l.rst, 3))
	case len(l.pages) == 0:
		return nil, ErrNoChapters
	case len(l.rst) > 0:
		opts.warn(l.rst[0], fmt.Errorf("%w: %d pages in reStructuredText (.rst) are not read: %s", errSkipped, len(l.rst), someOf(l.rst, 3)))
	}
	var chapters []*Chapter
	budget := newIncludeBudget(fsys)
	for _, p := range l.pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := readFile(fsys, p, opts.MaxFileBytes)
		if errors.Is(err, errSkipped) {
			opts.warn(p, err)
			continue
		}
		if err != nil {
			return nil, err
		}
		if !utf8.Valid(b) {
			// Like an oversized page: one bad file does not stop the book.
			opts.warn(p, fmt.Errorf("%w: not valid UTF-8 (save it as UTF-8)", errSkipped))
			continue
		}
		if lay.mdBook {
			b = expandIncludes(fsys, p, b, opts, budget)
		} else {
			warnOutsideIncludes(p, b, opts)
		}
		if strings.HasSuffix(p, notebookExt) {
			nb, err := page.Notebook(b)
			if err != nil {
				opts.warn(p, fmt.Errorf("%w: %v", errSkipped, err))
				continue
			}
			b = nb
		}
		if cut, line := page.LimitNesting(b); line > 0 {
			opts.warn(p, page.NestingWarning(line))
			b = cut
		}
		fmt.Fprintf(hash, "%s\x00%d\x00", p, len(b))
		hash.Write(b)
		c := newChapter(p, b, lay.base, lay.vars)
		if lay.chapter != nil {
			lay.chapter(c)
		}
		chapters = append(chapters, c)
	}
	if len(chapters) == 0 {
		return nil, fmt.Errorf("%w that could be read", ErrNoChapters)
	}
	categories := l.categories
	if lay.toc != nil {
		categories = nil // the table of contents orders and names the book
	}
	folders, err := readFolders(fsys, chapters, categories, hash, opts)
	if err != nil {
		return nil, err
	}
	for dir, title := range lay.folderTitles {
		if f := folders[dir]; f != nil && f.index == nil {
			f.title = title
		}
	}
	t := &Tree{Title: "Textbook", folders: folders}
	switch {
	case lay.toc != nil:
		applyToc(t, chapters, folders, *lay.toc, opts)
	case lay.arrange != nil:
		lay.arrange(t, chapters, folders)
	default:
		assignModules(t, chapters, folders)
	}
	identify(t.Chapters, lay.route, opts)
	for _, c := range t.Chapters {
		if c.ModuleID == "" && (c.IsIndex || stem(c.File) == "intro") {
			t.Title = c.Title
			break
		}
	}
	if lay.title != "" {
		t.Title = lay.title
	}
	t.Nav = navigation(t)
	t.Hash = hex.EncodeToString(hash.Sum(nil))
	return t, nil
}

// navigation orders the top level as a Docusaurus sidebar does: the root's
// index page first, then root chapters and top folders by position and
// name (naturally: "chapter-9" before "chapter-10"). A top folder that is
// not a module itself lists its modules, in the tree's order, in its place.
func navigation(t *Tree) []Entry {
	type entry struct {
		rank
		items []Entry
	}
	var entries []entry
	for _, c := range t.Chapters {
		if c.ModuleID == "" {
			entries = append(entries, entry{rank{c.IsIndex, c.Position, path.Base(c.File)}, []Entry{{Chapter: c}}})
		}
	}
	top := map[string]int{}
	for _, m := range t.Modules {
		name := strings.SplitN(m.ID, "/", 2)[0]
		i, ok := top[name]
		if !ok {
			i = len(entries)
			top[name] = i
			pos := m.Position
			if name != m.ID {
				pos = t.FolderPosition(name)
			}
			entries = append(entries, entry{rank: rank{pos: pos, name: name}})
		}
		entries[i].items = append(entries[i].items, Entry{Module: m})
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].less(entries[j].rank) })
	var nav []Entry
	for _, e := range entries {
		nav = append(nav, e.items...)
	}
	return nav
}

// newChapter reads a page. base is the folder the book's pages are in
// (an mdBook's src), "" for the book's root: the page's folder, and so
// its id and page path, are taken under it. vars are the site's values
// for the page's placeholders.
func newChapter(p string, raw []byte, base string, vars page.Vars) *Chapter {
	pg := page.ReadWith(raw, vars)
	fm := pg.FrontMatter
	c := &Chapter{File: p, Path: pagePath(p), page: pg, Body: pg.Body, Position: noPosition}
	if d := path.Dir(p); d != "." {
		c.dir = d
	}
	if c.dir == base {
		c.dir = ""
	} else if base != "" {
		c.dir = strings.TrimPrefix(c.dir, base+"/")
	}
	s := stem(p)
	c.IsIndex = isIndexName(s, c.dir)
	if v, ok := frontMatterPosition(fm); ok {
		c.Position = v
	} else if n, ok := numberPrefix(s); ok {
		c.Position = n
	}
	c.Title = pg.Title()
	if c.Title == "" {
		c.Title = stripNumberPrefix(s)
	}
	c.Label = fm["sidebar_label"]
	if c.Label == "" {
		c.Label = c.Title
	}
	return c
}

// isIndexName reports a folder's index page as Docusaurus does: index,
// README, or the folder's own name; or a Hugo section's _index.
func isIndexName(stem, dir string) bool {
	s := strings.ToLower(stem)
	return s == "index" || s == "readme" || s == hugoSection || dir != "" && s == strings.ToLower(path.Base(dir))
}

// positionKeys are the front-matter keys that place a page among its
// folder's: Docusaurus's sidebar_position, Hugo's weight, and the
// sort_rank of sites in Hugo's manner (the Prometheus docs). A weight of 0
// is Hugo's "none".
var positionKeys = []string{"sidebar_position", "weight", "sort_rank"}

func frontMatterPosition(fm map[string]string) (float64, bool) {
	for _, k := range positionKeys {
		if v, err := strconv.ParseFloat(fm[k], 64); err == nil && (v != 0 || k == "sidebar_position") {
			return v, true
		}
	}
	return 0, false
}

// folder is what a folder's _category_.json and index page say about it.
type folder struct {
	title    string
	position float64
	index    *Chapter
}

func readFolders(fsys fs.FS, chapters []*Chapter, categories map[string]string, hash io.Writer, opts Options) (map[string]*folder, error) {
	folders := map[string]*folder{}
	get := func(dir string) *folder {
		f := folders[dir]
		if f == nil {
			f = &folder{title: stripNumberPrefix(path.Base(dir)), position: noPosition}
			if n, ok := numberPrefix(path.Base(dir)); ok {
				f.position = n
			}
			folders[dir] = f
		}
		return f
	}
	for _, c := range chapters {
		for d := c.dir; d != ""; d = parentDir(d) {
			get(d)
		}
		if c.IsIndex && c.dir != "" {
			f := get(c.dir)
			if f.index == nil {
				f.index = c
				f.title = c.Title
				if c.Position != noPosition {
					f.position = c.Position
				}
			}
		}
	}
	dirs := make([]string, 0, len(categories))
	for d := range categories {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		f, ok := folders[d]
		if !ok {
			continue // a folder without pages
		}
		p := categories[d]
		b, err := readFile(fsys, p, opts.MaxFileBytes)
		if errors.Is(err, errSkipped) {
			// The folder keeps its name and number prefix.
			opts.warn(p, err)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		hash.Write(b)
		cat, err := parseCategory(b)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		if cat.Label != "" {
			f.title = cat.Label
		}
		if cat.Position != nil {
			f.position = *cat.Position
		}
	}
	return folders, nil
}

func parentDir(d string) string {
	if p := path.Dir(d); p != "." {
		return p
	}
	return ""
}

// assignModules makes every folder that holds a chapter other than its
// index page a module, at whatever depth. A folder that holds only its
// index page and more folders (a book's top folder, as many sites have)
// is not one: its index page belongs to the nearest module above it, or
// to the book's root.
func assignModules(t *Tree, chapters []*Chapter, folders map[string]*folder) {
	content := map[string]bool{} // folders holding a non-index page
	deeper := map[string]bool{}  // folders with pages in a sub-folder
	for _, c := range chapters {
		if !c.IsIndex {
			content[c.dir] = true
		}
		for d := c.dir; d != ""; {
			d = parentDir(d)
			deeper[d] = true
		}
	}
	isModule := func(d string) bool { return d != "" && (content[d] || !deeper[d]) }
	modules := map[string]*Module{}
	for _, c := range chapters {
		d := c.dir
		for d != "" && !isModule(d) {
			d = parentDir(d)
		}
		c.ModuleID = d
		if d == "" {
			continue
		}
		m := modules[d]
		if m == nil {
			f := folders[d]
			m = &Module{ID: d, Route: stripPathPrefixes(d), Title: f.title, Position: f.position}
			modules[d] = m
			t.Modules = append(t.Modules, m)
		}
		m.Chapters = append(m.Chapters, c)
		if c.IsIndex && c.dir == d && m.Index == nil {
			m.Index = c
		}
	}
	// Modules in sidebar order: folder by folder from the root, each level
	// by position, then name.
	key := func(d string) []string {
		var parts []string
		for ; d != ""; d = parentDir(d) {
			parts = append([]string{d}, parts...)
		}
		return parts
	}
	sort.SliceStable(t.Modules, func(i, j int) bool {
		a, b := key(t.Modules[i].ID), key(t.Modules[j].ID)
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] == b[k] {
				continue
			}
			pa, pb := folders[a[k]].position, folders[b[k]].position
			if pa != pb {
				return pa < pb
			}
			return NaturalLess(a[k], b[k])
		}
		return len(a) < len(b)
	})
	var root []*Chapter
	for _, c := range chapters {
		if c.ModuleID == "" {
			root = append(root, c)
		}
	}
	sortChapters(root)
	t.Chapters = root
	for _, m := range t.Modules {
		sortChapters(m.Chapters)
		t.Chapters = append(t.Chapters, m.Chapters...)
	}
}

// sortChapters puts index pages first, then orders by sidebar position
// and path ("chapter-9" before "chapter-10").
func sortChapters(cs []*Chapter) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		return rank{a.IsIndex, a.Position, a.File}.less(rank{b.IsIndex, b.Position, b.File})
	})
}

// rank is where an entry goes in a sidebar: index pages first, then by
// position, then by name, naturally.
type rank struct {
	index bool
	pos   float64
	name  string
}

func (a rank) less(b rank) bool {
	if a.index != b.index {
		return a.index
	}
	if a.pos != b.pos {
		return a.pos < b.pos
	}
	return NaturalLess(a.name, b.name)
}

// NaturalLess orders names with numbers as a reader does: "chapter-2"
// before "chapter-10".
func NaturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := leadingDigits(a), leadingDigits(b)
		if da != "" && db != "" {
			na, _ := strconv.ParseFloat(da, 64)
			nb, _ := strconv.ParseFloat(db, 64)
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

// identify gives each chapter its id and page route, unique in the book:
// the route the layout gives (route), else Docusaurus's. Two pages that
// Docusaurus would give one id or one route (it refuses to build such a
// site) keep their file paths instead, with a warning.
func identify(chapters []*Chapter, route func(*Chapter) string, opts Options) {
	ids, routes := map[string]bool{}, map[string]bool{}
	for _, c := range chapters {
		base := stripNumberPrefix(stem(c.File))
		if id := c.page.FrontMatter["id"]; id != "" && !strings.Contains(id, "/") {
			base = id
		}
		c.ID = unique(ids, path.Join(c.dir, base), c, "chapter id", opts)

		dir := stripPathPrefixes(c.dir)
		switch slug := c.page.FrontMatter["slug"]; {
		case route != nil:
			c.Route = route(c)
		case strings.HasPrefix(slug, "/"):
			c.Route = strings.Trim(path.Clean(slug), "/")
		case slug != "":
			c.Route = strings.Trim(path.Join("/", dir, slug), "/")
		case c.IsIndex:
			c.Route = dir
		default:
			c.Route = path.Join(dir, base)
		}
		c.Route = unique(routes, c.Route, c, "page path", opts)
	}
}

// unique returns want when no other page has it, else the page's file
// path (numbered if that too is taken), with a warning; it takes the
// name it returns.
func unique(taken map[string]bool, want string, c *Chapter, what string, opts Options) string {
	got := want
	for n := 1; taken[got]; n++ {
		got = c.Path
		if n > 1 {
			got += "-" + strconv.Itoa(n)
		}
	}
	if got != want {
		opts.warn(c.File, fmt.Errorf("%s %q is taken by another page: it is %q here", what, want, got))
	}
	taken[got] = true
	return got
}

var (
	// numberPrefixed is a Docusaurus number prefix: "01-intro", "2. Setup".
	numberPrefixed = regexp.MustCompile(`^(\d+)\s*[-_.]+\s*([^-_.\s].*)$`)
	// notNumberPrefixed are names that start with digits but no prefix:
	// dates and versions.
	notNumberPrefixed = regexp.MustCompile(`^(\d{2,4}[-_.]\d{1,2}[-_.]\d{1,2}|\d+[-_.]\d+)`)
)

// stripNumberPrefix drops the number prefix Docusaurus uses for ordering
// from a file or folder name.
func stripNumberPrefix(name string) string {
	if notNumberPrefixed.MatchString(name) {
		return name
	}
	if m := numberPrefixed.FindStringSubmatch(name); m != nil {
		return m[2]
	}
	return name
}

func numberPrefix(name string) (float64, bool) {
	if notNumberPrefixed.MatchString(name) {
		return 0, false
	}
	m := numberPrefixed.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseFloat(m[1], 64)
	return n, err == nil
}

func stripPathPrefixes(dir string) string {
	if dir == "" {
		return ""
	}
	parts := strings.Split(dir, "/")
	for i, p := range parts {
		parts[i] = stripNumberPrefix(p)
	}
	return strings.Join(parts, "/")
}
