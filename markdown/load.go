// Package markdown reads a book as its site shows it: which pages it has,
// in which order, under which titles and in which modules. Each site
// generator's layout (mdBook or GitBook, doc-builder, a Docusaurus
// sidebar, MkDocs, Jupyter Book, Quarto, bookdown, Jekyll: see layout.go)
// is a file of its own whose table of contents gives the order, titles
// and modules; a book in none of them is read as a folder of folders
// (folders are modules, pages are chapters, _category_.json and number
// prefixes order them). What one page's markup says, and how it is cut
// into chunks, is package page's business: the site hands it each page
// and the place the page has in the book.
package markdown

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"runtime"
	"strconv"
	"strings"
	"unicode"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/markdown/page"
)

// Version names the chunker's output format. Change it whenever the same
// book would be cut differently, so existing indexes are rebuilt.
const Version = "12"

// Options are the chunker's sizes, in cl100k tokens.
type Options struct {
	TargetTokens  int // what a split aims at
	MaxTokens     int // never exceeded, but by a single oversized code block
	MinTokens     int // smaller chunks join a neighbour of the same chapter
	OverlapTokens int // how much of a chunk's end starts the next one
	// MaxFileBytes is the largest page or _category_.json read; larger
	// files are skipped with a warning.
	MaxFileBytes int64
	// Progress, when set, is called after each chapter is read.
	Progress func(done, total int, path string)
	// Chunked, when set, is called after each chapter with the number of
	// chunks so far.
	Chunked func(chunks int)
	// Warn, when set, hears of each file left out of the book and why.
	Warn func(path string, err error)
}

func (o Options) warn(path string, err error) {
	if o.Warn != nil {
		o.Warn(path, err)
	}
}

// DefaultOptions are the sizes: aim for 450, never over 1000,
// nothing under 100, 50 tokens of overlap; pages up to 8 MiB (a long
// textbook chapter is well under 1 MiB).
func DefaultOptions() Options {
	return Options{TargetTokens: 450, MaxTokens: 1000, MinTokens: 100, OverlapTokens: 50, MaxFileBytes: 8 << 20}
}

// Fingerprint names the chunker's version and sizes (the defaults for
// sizes not set), as an index stores them: an index cut otherwise is cut
// again.
func (o Options) Fingerprint() string {
	o = o.withDefaults()
	return fmt.Sprintf("chunker=%s target=%d max=%d min=%d overlap=%d", Version, o.TargetTokens, o.MaxTokens, o.MinTokens, o.OverlapTokens)
}

func (o Options) sizes() page.Sizes {
	return page.Sizes{Target: o.TargetTokens, Max: o.MaxTokens, Min: o.MinTokens, Overlap: o.OverlapTokens}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.TargetTokens <= 0 {
		o.TargetTokens = d.TargetTokens
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = d.MaxTokens
	}
	if o.MinTokens <= 0 {
		o.MinTokens = d.MinTokens
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = d.MaxFileBytes
	}
	if o.OverlapTokens < 0 {
		o.OverlapTokens = 0
	} else if o.OverlapTokens == 0 {
		o.OverlapTokens = d.OverlapTokens
	}
	return o
}

// pageExts are the extensions of the pages a book is written in:
// Markdown and MDX, Quarto's .qmd and R Markdown's .Rmd (bookdown).
// Jupyter notebooks are pages of a Jupyter Book only (see notebookExt).
var pageExts = []string{".md", ".mdx", ".qmd", ".Rmd", ".rmd"}

// notebookExt is a Jupyter notebook's extension.
const notebookExt = ".ipynb"

func isPage(name string) bool { return pageExt(name) != "" }

// pageExt is the page extension name ends in, "" for none.
func pageExt(name string) string {
	for _, e := range pageExts {
		if strings.HasSuffix(name, e) {
			return e
		}
	}
	return ""
}

// withoutExt is a page's path without its page (or notebook) extension.
func withoutExt(p string) string {
	if e := pageExt(p); e != "" {
		return strings.TrimSuffix(p, e)
	}
	return strings.TrimSuffix(p, notebookExt)
}

func hidden(name string) bool { return strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") }

// Load reads the whole book and returns what it learned and its chunks in
// book order (the chapters at the root, then the modules' chapters). It
// stops with ctx's error when ctx is done.
func Load(ctx context.Context, fsys fs.FS, opts Options) (rag.Book, []rag.Chunk, error) {
	opts = opts.withDefaults()
	t, err := ReadTree(ctx, fsys, opts)
	if err != nil {
		return rag.Book{}, nil, err
	}
	return chunkTree(ctx, t, opts)
}

// chunkTree cuts a book read into t into chunks, in book order.
func chunkTree(ctx context.Context, t *Tree, opts Options) (rag.Book, []rag.Chunk, error) {
	// Hold the token encoder until the whole book is chunked (see encoder).
	defer page.HoldEncoder()()
	book := rag.Book{Title: t.Title, Hash: t.Hash}
	// Chapters at the book's root belong to no module; their chunks name
	// the book instead.
	moduleTitle := map[string]string{"": t.Title}
	for _, m := range t.Modules {
		book.Modules = append(book.Modules, rag.Module{ID: m.ID, Title: m.Title})
		moduleTitle[m.ID] = m.Title
	}
	// Each chapter is parsed and chunked on its own (counting tokens is
	// most of the cost), so the cores share the chapters; the chunks and
	// the progress still come in the book's order.
	perChapter := make([][]rag.Chunk, len(t.Chapters))
	done := make([]chan struct{}, len(t.Chapters))
	for i := range done {
		done[i] = make(chan struct{})
	}
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		go func() {
			for i := w; i < len(t.Chapters); i += workers {
				c := t.Chapters[i]
				at := page.Place{Path: c.Path, ChapterID: c.ID, Route: c.Route, ModuleID: c.ModuleID,
					ModuleTitle: moduleTitle[c.ModuleID], ChapterTitle: c.Title}
				if chunks := c.page.Chunks(ctx, at, opts.sizes()); ctx.Err() == nil {
					perChapter[i] = chunks
				}
				close(done[i])
			}
		}()
	}
	var chunks []rag.Chunk
	for i, c := range t.Chapters {
		<-done[i]
		if err := ctx.Err(); err != nil {
			return rag.Book{}, nil, err
		}
		chunks = append(chunks, perChapter[i]...)
		if opts.Chunked != nil {
			opts.Chunked(len(chunks))
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(t.Chapters), c.File)
		}
	}
	// A signal during the last chapter still stops the load.
	if err := ctx.Err(); err != nil {
		return rag.Book{}, nil, err
	}
	return book, chunks, nil
}

// listing is what walkBook found: the book's pages, its folders'
// _category_.json files, the layouts' config files at its root, its
// notebooks and the pages in folders whose name starts with "_". An
// mdBook's SUMMARY.md is among the pages: whether it is a table of
// contents is known once it is read. Which notebooks and "_" folders are
// part of the book, the layout says (readLayout).
type listing struct {
	pages      []string
	categories map[string]string // folder -> its _category_.json
	configs    map[string]bool   // layout config files at the root (configFiles)
	notebooks  []string
	// underscored are the pages under a "_" folder: a Docusaurus partial,
	// or a Jekyll collection.
	underscored []string
	// rst are the pages in reStructuredText, which are not read.
	rst []string
	// sections are the _index.md pages: a Hugo section's own page, a
	// partial elsewhere.
	sections []string
}

// files lists every file the listing names.
func (l listing) files() []string {
	files := append([]string(nil), l.pages...)
	for _, p := range l.categories {
		files = append(files, p)
	}
	for p := range l.configs {
		files = append(files, p)
	}
	files = append(files, l.notebooks...)
	files = append(files, l.sections...)
	return append(files, l.underscored...)
}

// toolFolders hold what a site generator builds or assembles pages from
// (Jekyll's _site, _layouts and _includes; Jupyter Book's _build;
// bookdown's _book; Quarto's _freeze), never pages of the book.
var toolFolders = map[string]bool{"_site": true, "_build": true, "_book": true, "_freeze": true, "_bookdown_files": true,
	"_layouts": true, "_includes": true, "_sass": true, "_data": true, "_plugins": true, "_drafts": true}

// inUnderscored reports a path inside a folder whose name starts with "_".
func inUnderscored(p string) bool {
	for d := parentDir(p); d != ""; d = parentDir(d) {
		if strings.HasPrefix(path.Base(d), "_") {
			return true
		}
	}
	return false
}

// walkBook lists the book's pages, _category_.json files (by folder) and
// _toctree.yml. Only regular files are read: a symbolic link could lead
// out of the book (or to /dev/zero), a FIFO would block the read forever;
// they, devices and sockets are skipped with a warning.
func walkBook(ctx context.Context, fsys fs.FS, opts Options) (listing, error) {
	l := listing{categories: map[string]string{}, configs: map[string]bool{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil && p != "." && errors.Is(err, fs.ErrNotExist) {
			// Removed since its folder was listed: the book is being edited.
			opts.warn(p, fmt.Errorf("%w: removed while the book was read", errSkipped))
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if strings.HasPrefix(name, ".") || name == "node_modules" || toolFolders[name] {
				return fs.SkipDir
			}
			if hasControl(name) {
				opts.warn(p, fmt.Errorf("%w: the name holds control characters", errSkipped))
				return fs.SkipDir
			}
			return nil
		}
		isCategory := name == "_category_.json"
		isConfig := configFiles[p]
		isNotebook := strings.HasSuffix(name, notebookExt) && !hidden(name)
		isSection := isPage(name) && (stem(name) == hugoSection || strings.HasPrefix(stem(name), hugoSection+".") && hugoLanguage.MatchString(strings.TrimPrefix(stem(name), hugoSection+".")))
		if strings.HasSuffix(name, ".rst") && !hidden(name) && d.Type().IsRegular() && !inUnderscored(p) {
			l.rst = append(l.rst, p)
			return nil
		}
		if !isCategory && !isConfig && !isNotebook && !isSection && (hidden(name) || !isPage(name)) && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		if !d.Type().IsRegular() {
			if !hidden(name) || isCategory || isConfig {
				opts.warn(p, fmt.Errorf("%w: %s", errSkipped, kindOf(d.Type())))
			}
			return nil
		}
		switch {
		case isCategory:
			l.categories[path.Dir(p)] = p
			return nil
		case isConfig:
			l.configs[p] = true
			return nil
		}
		if hasControl(name) {
			// Names become ids, titles and links.
			opts.warn(p, fmt.Errorf("%w: the name holds control characters", errSkipped))
			return nil
		}
		switch {
		case isSection && !inUnderscored(p):
			l.sections = append(l.sections, p)
		case inUnderscored(p):
			l.underscored = append(l.underscored, p)
		case isNotebook:
			l.notebooks = append(l.notebooks, p)
		default:
			l.pages = append(l.pages, p)
		}
		return nil
	})
	return l, err
}

// errSkipped marks a file left out of the book; the rest is read.
var errSkipped = errors.New("skipped")

func hasControl(s string) bool {
	return strings.ContainsFunc(s, unicode.IsControl)
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link (links are not followed)"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe, not a regular file"
	case m&fs.ModeDevice != 0:
		return "a device, not a regular file"
	case m&fs.ModeSocket != 0:
		return "a socket, not a regular file"
	}
	return "not a regular file"
}

// readFile reads a regular file of at most limit bytes; anything else is
// errSkipped with the reason.
func readFile(fsys fs.FS, p string, limit int64) ([]byte, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s", errSkipped, kindOf(info.Mode()))
	}
	tooBig := fmt.Errorf("%w: larger than the limit of %s per file", errSkipped, byteSize(limit))
	if info.Size() > limit {
		return nil, tooBig
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if int64(len(b)) > limit {
		return nil, tooBig
	}
	return b, nil
}

func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

func stem(p string) string { return withoutExt(path.Base(p)) }

// category is what a folder's _category_.json says about it.
type category struct {
	Label    string
	Position *float64
}

// parseCategory reads _category_.json; a mistake is reported by field and
// JSON kind ("label" is an array, want a string), not by Go type.
func parseCategory(b []byte) (category, error) {
	var cat category
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return cat, fmt.Errorf("not valid JSON at byte %d: %s", se.Offset, se)
		}
		return cat, fmt.Errorf("want a JSON object, found %s", jsonKind(bytes.TrimSpace(b)))
	}
	if v, ok := fields["label"]; ok && jsonKind(v) != "null" {
		if err := json.Unmarshal(v, &cat.Label); err != nil {
			return cat, fmt.Errorf("field \"label\" is %s, want a string", jsonKind(v))
		}
	}
	if v, ok := fields["position"]; ok && jsonKind(v) != "null" {
		var f float64
		if err := json.Unmarshal(v, &f); err != nil {
			return cat, fmt.Errorf("field \"position\" is %s, want a number", jsonKind(v))
		}
		cat.Position = &f
	}
	return cat, nil
}

// jsonKind names the kind of a JSON value for an error message.
func jsonKind(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "empty"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
