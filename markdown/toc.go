package markdown

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/textbook-rag/rag/markdown/page"
	"github.com/yuin/goldmark/ast"
	"go.yaml.in/yaml/v3"
)

// Most layouts give a book's order and titles in one file, not in
// _category_.json and number prefixes: mdBook and GitBook in SUMMARY.md,
// doc-builder in _toctree.yml, MkDocs in mkdocs.yml, Jupyter Book in
// _toc.yml, Quarto in _quarto.yml, bookdown in _bookdown.yml, a
// Docusaurus site in sidebars.js. Each layout (layout_*.go) reads its file
// as a toc; this file holds the toc, the SUMMARY.md and _toctree.yml
// readers and applyToc, which orders the book by it.

const (
	summaryFile = "SUMMARY.md"
	toctreeFile = "_toctree.yml"
	// maxTocDepth bounds the nesting of a table of contents; a real one
	// has three or four levels.
	maxTocDepth = 32
	// maxTocParagraph bounds the lines of a paragraph of a table of
	// contents that holds a bracket which opens no link (see
	// longParagraph); a real one has a few lines, of links.
	maxTocParagraph = 64
)

// tocEntry is one line of a table of contents.
type tocEntry struct {
	Title string
	// Path is the page's path under the book root without extension, ""
	// for an entry without a page (an mdBook draft, a doc-builder group).
	Path string
	// Ref is the page as the file writes it, for warnings.
	Ref      string
	Children []tocEntry
}

// toc is a book's table of contents.
type toc struct {
	file    string
	entries []tocEntry
	// only: the site builds only the pages its table of contents lists
	// (mdBook, Jupyter Book, Quarto, bookdown, Sphinx); the others are
	// repository files (a README, a code of conduct), not pages of the
	// book. Else they are read after the listed ones.
	only bool
}

// someOf lists the first n names, and how many more there are.
func someOf(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}

func pagePath(file string) string { return withoutExt(file) }

func listsAPage(entries []tocEntry, known map[string]bool) bool {
	for _, e := range entries {
		if known[e.Path] || listsAPage(e.Children, known) {
			return true
		}
	}
	return false
}

// parseSummary reads an mdBook or GitBook SUMMARY.md: prefix and suffix
// chapters as links on their own lines, numbered chapters as a nested
// list of links ("- [Title](file.md)", a draft as "- [Title]()"), part
// titles as headings and "---" separators, which carry no page; HTML
// comments are not shown. Any other line (prose, code, a list item that
// is no link) is skipped, with an error each in skipped naming its line.
// ok is false when such lines are as many as the entries: then it is a
// page named SUMMARY.md, not a table of contents. dir is the file's
// folder.
func parseSummary(src []byte, dir string) (entries []tocEntry, skipped []error, ok bool) {
	if line, n := longParagraph(src); n > 0 {
		return nil, []error{fmt.Errorf("line %d: %w (%d lines)", line, errLongParagraph, n)}, false
	}
	doc := page.Parse(src)
	s := summaryReader{src: src, dir: dir}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading, *ast.ThematicBreak:
		case *ast.HTMLBlock:
			if n.HTMLBlockType != ast.HTMLBlockType2 {
				s.skip(n, "HTML")
			}
		case *ast.Paragraph:
			entries = append(entries, s.links(n)...)
		case *ast.List:
			entries = append(entries, s.list(n, 0)...)
		default:
			s.skip(n, "not a link to a page")
		}
	}
	return entries, s.skipped, len(entries) > 0 && len(s.skipped) < len(entries)
}

// errLongParagraph is parseSummary's reason for a file that is no table
// of contents at all.
var errLongParagraph = errors.New("a paragraph of text with brackets, not a table of contents")

// longParagraph finds a paragraph (at any depth) of more than
// maxTocParagraph lines with a "]" that closes no inline link: its line
// and its length, 0 for none. No table of contents has one, and parsing
// its inlines costs the square of its lines (goldmark looks for a link
// reference from the paragraph's end back to each such bracket).
func longParagraph(src []byte) (line, n int) {
	if !bareBracket(src) {
		return 0, 0 // the common case: no parse needed
	}
	var found ast.Node
	ast.Walk(page.ParseStructure(src), func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c.(type) {
		case *ast.Paragraph, *ast.TextBlock:
		default:
			return ast.WalkContinue, nil
		}
		if c.Lines().Len() <= maxTocParagraph {
			return ast.WalkContinue, nil
		}
		lines := c.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			v := seg.Value(src)
			if bareBracket(v) {
				found = c
				return ast.WalkStop, nil
			}
		}
		return ast.WalkContinue, nil
	})
	if found == nil {
		return 0, 0
	}
	start, _ := page.BlockStart(found, src)
	return 1 + bytes.Count(src[:start], []byte("\n")), found.Lines().Len()
}

// bareBracket reports a "]" in v that no "(" follows: one that closes no
// inline link.
func bareBracket(v []byte) bool {
	for i := bytes.IndexByte(v, ']'); i >= 0; {
		if i+1 >= len(v) || v[i+1] != '(' {
			return true
		}
		k := bytes.IndexByte(v[i+1:], ']')
		if k < 0 {
			return false
		}
		i += 1 + k
	}
	return false
}

// summaryReader reads the blocks of a SUMMARY.md and notes what it skips.
type summaryReader struct {
	src     []byte
	dir     string
	skipped []error
	// newlines are the offsets of the source's line ends, found once: a
	// skipped block's line is looked up, not counted from the start.
	newlines []int
}

func (s *summaryReader) skip(n ast.Node, why string) {
	line := 0
	if off, ok := page.BlockStart(n, s.src); ok {
		if s.newlines == nil {
			s.newlines = []int{}
			for i, c := range s.src {
				if c == '\n' {
					s.newlines = append(s.newlines, i)
				}
			}
		}
		line = 1 + sort.SearchInts(s.newlines, off)
	}
	s.skipped = append(s.skipped, fmt.Errorf("line %d: skipped, %s", line, why))
}

// links reads a paragraph of links, one entry each; a paragraph with
// anything else is skipped.
func (s *summaryReader) links(n ast.Node) []tocEntry {
	var out []tocEntry
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Link:
			out = append(out, summaryEntry(c, s.src, s.dir))
		case *ast.Text:
			if strings.TrimSpace(string(c.Segment.Value(s.src))) != "" {
				s.skip(n, "not a link to a page")
				return nil
			}
		case *ast.RawHTML:
			// An inline comment is not shown.
		default:
			s.skip(n, "not a link to a page")
			return nil
		}
	}
	return out
}

// list reads a nested list of links; an item that is no link is skipped,
// the items under it still read.
func (s *summaryReader) list(l *ast.List, depth int) []tocEntry {
	if depth > maxTocDepth {
		s.skip(l, fmt.Sprintf("nested deeper than %d levels", maxTocDepth))
		return nil
	}
	var out []tocEntry
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		first := item.FirstChild()
		if first == nil {
			continue
		}
		var e *tocEntry
		if _, isList := first.(*ast.List); !isList {
			if es := s.links(first); len(es) == 1 {
				e = &es[0]
			} else if len(es) > 1 {
				s.skip(first, "more than one link in a list item")
			}
		}
		var children []tocEntry
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			if c == first && e != nil {
				continue
			}
			switch c := c.(type) {
			case *ast.List:
				children = append(children, s.list(c, depth+1)...)
			case *ast.HTMLBlock:
			default:
				if c != first {
					s.skip(c, "not a link to a page")
				}
			}
		}
		if e == nil {
			out = append(out, children...)
			continue
		}
		e.Children = append(e.Children, children...)
		out = append(out, *e)
	}
	return out
}

func summaryEntry(l *ast.Link, src []byte, dir string) tocEntry {
	ref := string(l.Destination)
	return tocEntry{Title: page.PlainText(l, src), Ref: ref, Path: tocPath(dir, ref)}
}

// tocPath is the page a table of contents names, relative to its folder
// dir: its path under the book root without extension, or "" for none,
// a web address or one that leads out of the book.
func tocPath(dir, ref string) string {
	ref = strings.TrimSpace(ref)
	if u, err := url.PathUnescape(ref); err == nil {
		ref = u
	}
	ref, _, _ = strings.Cut(ref, "#")
	if ref == "" || strings.Contains(ref, "://") || path.IsAbs(ref) {
		return ""
	}
	p := path.Join(dir, ref)
	if p == "." || !fs.ValidPath(p) {
		return ""
	}
	return pagePath(p)
}

// leavesBook reports whether a table of contents' reference that names
// no page of the book (tocPath is "") names a file outside it, rather
// than a web address or an anchor of the page.
func leavesBook(ref string) bool {
	ref = strings.TrimSpace(ref)
	if u, err := url.PathUnescape(ref); err == nil {
		ref = u
	}
	ref, _, _ = strings.Cut(ref, "#")
	if ref == "" || strings.Contains(ref, "://") {
		return false
	}
	if scheme, _, ok := strings.Cut(ref, ":"); ok && !strings.ContainsAny(scheme, "/.") {
		return false // mailto:, tel:
	}
	return true
}

// parseToctree reads a doc-builder _toctree.yml: a list of sections, each
// with a title, a local page (its path without extension) and nested
// sections. Other keys (isExpanded, new, …) are left alone. A mistake is
// reported by line and by field.
func parseToctree(b []byte) ([]tocEntry, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil, errors.New("empty: want a list of sections")
	}
	return toctreeList(doc.Content[0], "the file", 0)
}

// tocList checks a table of contents' list (the what, a list of want) and
// its depth: a sequence, holding entries (of a kind) nested no deeper than
// maxTocDepth.
func tocList(n *yaml.Node, what, want, entries string, depth int) error {
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("line %d: %s is %s, want %s", n.Line, what, yamlKind(n), want)
	}
	if depth > maxTocDepth {
		return fmt.Errorf("line %d: %s nested deeper than %d levels", n.Line, entries, maxTocDepth)
	}
	return nil
}

func toctreeList(n *yaml.Node, what string, depth int) ([]tocEntry, error) {
	if err := tocList(n, what, "a list of sections", "sections", depth); err != nil {
		return nil, err
	}
	var out []tocEntry
	for _, item := range n.Content {
		if item.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: a section is %s, want a mapping (title, local, sections)", item.Line, yamlKind(item))
		}
		var e tocEntry
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, v := item.Content[i], item.Content[i+1]
			switch k.Value {
			case "title", "local":
				if v.Kind != yaml.ScalarNode {
					return nil, fmt.Errorf("line %d: %q is %s, want text", v.Line, k.Value, yamlKind(v))
				}
				if k.Value == "title" {
					e.Title = strings.TrimSpace(v.Value)
				} else {
					e.Ref = v.Value
					e.Path = tocPath("", v.Value)
				}
			case "sections":
				children, err := toctreeList(v, `"sections"`, depth+1)
				if err != nil {
					return nil, err
				}
				e.Children = children
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// yamlKind names the kind of a YAML node for an error message.
func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias (*name)"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty"
		}
		return "text"
	}
	return "empty"
}

// applyToc orders the book as its table of contents does. A top-level
// entry with entries under it is a module: its own page (if any) is the
// module's index, the pages under it, at any depth, its chapters. A
// top-level entry without entries under it is a chapter at the book's
// root. Titles come from the table of contents (a front-matter title
// still wins). Pages it does not list are read after the listed ones,
// grouped by folder as in a Docusaurus book, with a warning.
func applyToc(t *Tree, chapters []*Chapter, folders map[string]*folder, tc toc, opts Options) {
	byPath := map[string]*Chapter{}
	for _, c := range chapters {
		if _, ok := byPath[c.Path]; !ok {
			byPath[c.Path] = c
		}
	}
	byDocID := docIDs(chapters)
	listed := map[*Chapter]bool{}
	pos := 0.0
	take := func(e tocEntry) *Chapter {
		if e.Ref != "" && e.Path == "" && leavesBook(e.Ref) {
			opts.warn(tc.file, fmt.Errorf("lists %q, which leads out of the book: left out", e.Ref))
			return nil
		}
		if e.Ref == "" || e.Path == "" {
			return nil // no page, or a web address
		}
		c := byPath[e.Path]
		if c == nil {
			c = byDocID[e.Path]
		}
		if c == nil {
			opts.warn(tc.file, fmt.Errorf("lists %q, which is not a page of the book", e.Ref))
			return nil
		}
		if listed[c] {
			return nil // listed twice: it stays where it was first listed
		}
		listed[c] = true
		c.Position = pos
		pos++
		if e.Title != "" {
			if c.page.FrontMatter["title"] == "" {
				c.Title = e.Title
			}
			if c.page.FrontMatter["sidebar_label"] == "" {
				c.Label = e.Title
			}
		}
		return c
	}
	var root []*Chapter
	var modules []*Module
	for _, e := range liftSingleGroup(tc.entries, byPath) {
		if len(e.Children) == 0 {
			if c := take(e); c != nil {
				root = append(root, c)
			}
			continue
		}
		m := &Module{Title: e.Title, Position: pos}
		if c := take(e); c != nil {
			m.Index = c
			m.Chapters = append(m.Chapters, c)
		}
		var under func([]tocEntry)
		under = func(es []tocEntry) {
			for _, e := range es {
				if c := take(e); c != nil {
					m.Chapters = append(m.Chapters, c)
				}
				under(e.Children)
			}
		}
		under(e.Children)
		if len(m.Chapters) == 0 {
			continue
		}
		if m.Title == "" {
			m.Title = m.Chapters[0].Title
		}
		modules = append(modules, m)
	}
	taken := map[string]bool{}
	byID := map[string]*Module{}
	for _, m := range modules {
		m.ID = tocModuleID(m, taken)
		m.Route = stripPathPrefixes(m.ID)
		byID[m.ID] = m
		for _, c := range m.Chapters {
			c.ModuleID = m.ID
		}
	}
	for _, c := range root {
		c.ModuleID = ""
	}

	var rest, unlisted []*Chapter
	for _, c := range chapters {
		switch {
		case listed[c]:
		case tc.only:
			unlisted = append(unlisted, c)
		default:
			rest = append(rest, c)
			opts.warn(c.File, fmt.Errorf("not listed in %s: read after the pages it lists", tc.file))
		}
	}
	if len(unlisted) > 0 {
		names := make([]string, len(unlisted))
		for i, c := range unlisted {
			names[i] = c.File
		}
		opts.warn(tc.file, fmt.Errorf("%w: not pages of the book, as it does not list them (%d): %s", errSkipped, len(unlisted), someOf(names, 3)))
	}
	if len(rest) > 0 {
		var more Tree
		assignModules(&more, rest, folders)
		for _, c := range more.Chapters {
			c.Position = pos
			pos++
			if c.ModuleID == "" {
				root = append(root, c)
			}
		}
		for _, m := range more.Modules {
			if have := byID[m.ID]; have != nil {
				have.Chapters = append(have.Chapters, m.Chapters...)
				continue
			}
			m.Position = m.Chapters[0].Position
			modules = append(modules, m)
		}
	}
	// The reader's navigation places a nested module by its top folder:
	// the folder takes the place of its first module.
	placed := map[string]bool{}
	for _, m := range modules {
		top, _, nested := strings.Cut(m.ID, "/")
		if !nested || placed[top] {
			continue
		}
		placed[top] = true
		f := folders[top]
		if f == nil {
			f = &folder{title: stripNumberPrefix(top)}
			folders[top] = f
		}
		f.position = m.Position
	}
	t.Modules = modules
	t.Chapters = root
	for _, m := range modules {
		t.Chapters = append(t.Chapters, m.Chapters...)
	}
}

// docIDs are the chapters by their Docusaurus doc id, with and without
// number prefixes: a sidebar names pages so.
func docIDs(chapters []*Chapter) map[string]*Chapter {
	ids := map[string]*Chapter{}
	add := func(id string, c *Chapter) {
		if _, ok := ids[id]; !ok {
			ids[id] = c
		}
	}
	for _, c := range chapters {
		base := stripNumberPrefix(stem(c.File))
		if id := c.page.FrontMatter["id"]; id != "" && !strings.Contains(id, "/") {
			base = id
		}
		add(path.Join(c.dir, base), c)
		add(path.Join(stripPathPrefixes(c.dir), base), c)
	}
	return ids
}

// liftSingleGroup reads the entries under a table of contents' only
// group of pages as its top level when they hold groups themselves: a
// site whose nav holds one tab ("Learn") with its sections under it has
// those sections as modules, not one module of the whole book. Pages
// beside the group stay where they are; entries that list no page of
// the book do not count.
func liftSingleGroup(entries []tocEntry, byPath map[string]*Chapter) []tocEntry {
	for depth := 0; depth < maxTocDepth; depth++ {
		group := -1
		for i, e := range entries {
			if len(e.Children) == 0 || !listsAChapter(e, byPath) {
				continue
			}
			if group >= 0 {
				return entries
			}
			group = i
		}
		if group < 0 || !hasGroup(entries[group].Children, byPath) {
			return entries
		}
		g := entries[group]
		lifted := append([]tocEntry(nil), entries[:group]...)
		if g.Path != "" && byPath[g.Path] != nil {
			lifted = append(lifted, tocEntry{Title: g.Title, Path: g.Path, Ref: g.Ref})
		}
		lifted = append(lifted, g.Children...)
		entries = append(lifted, entries[group+1:]...)
	}
	return entries
}

func hasGroup(entries []tocEntry, byPath map[string]*Chapter) bool {
	for _, e := range entries {
		if len(e.Children) > 0 && listsAChapter(e, byPath) {
			return true
		}
	}
	return false
}

func listsAChapter(e tocEntry, byPath map[string]*Chapter) bool {
	if byPath[e.Path] != nil {
		return true
	}
	for _, c := range e.Children {
		if listsAChapter(c, byPath) {
			return true
		}
	}
	return false
}

// tocModuleID names a module of a table of contents: the folder all its
// pages are in when that is one folder of the book's top level (a
// doc-builder course's "chapter3"), else its title as a slug; unique in
// the book.
func tocModuleID(m *Module, taken map[string]bool) string {
	dir := m.Chapters[0].dir
	for _, c := range m.Chapters[1:] {
		if c.dir != dir {
			dir = ""
			break
		}
	}
	id := dir
	if id == "" || strings.Contains(id, "/") || taken[id] {
		base := page.Slug(m.Title)
		if base == "" {
			base = "module"
		}
		id = base
		for n := 2; taken[id]; n++ {
			id = base + "-" + strconv.Itoa(n)
		}
	}
	taken[id] = true
	return id
}
