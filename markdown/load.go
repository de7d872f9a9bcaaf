// Package markdown reads a Docusaurus-style book — folders are modules,
// .md/.mdx files are chapters — parses each page with goldmark and cuts it
// into chunks for retrieval: split at `##`, then at `###` and at block
// boundaries when a section is too big, small pieces joined to a
// neighbour, adjacent chunks overlapping a little.
package markdown

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/textbook-rag/rag"
)

// Version names the chunker's output format. Change it whenever the same
// book would be cut differently, so existing indexes are rebuilt.
const Version = "5"

// Options are the chunker's sizes, in cl100k tokens.
type Options struct {
	TargetTokens  int // what a split aims at
	MaxTokens     int // never exceeded, but by a single oversized code block
	MinTokens     int // smaller chunks join a neighbour of the same chapter
	OverlapTokens int // how much of a chunk's end starts the next one
	// Progress, when set, is called after each chapter is read.
	Progress func(done, total int, path string)
}

// DefaultOptions are the sizes: aim for 450, never over 1000,
// nothing under 100, 50 tokens of overlap.
func DefaultOptions() Options {
	return Options{TargetTokens: 450, MaxTokens: 1000, MinTokens: 100, OverlapTokens: 50}
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
	if o.OverlapTokens < 0 {
		o.OverlapTokens = 0
	} else if o.OverlapTokens == 0 {
		o.OverlapTokens = d.OverlapTokens
	}
	return o
}

// chapterFile is one page of the book.
type chapterFile struct {
	path     string // relative, with extension
	module   string // top-level folder, "" at the root
	fm       frontMatter
	body     []byte
	position float64
}

func isPage(name string) bool {
	return strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".mdx")
}

func hidden(name string) bool { return strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") }

// Load reads the whole book and returns what it learned and its chunks in
// book order (modules, then chapters by sidebar position and name).
func Load(fsys fs.FS, opts Options) (rag.Book, []rag.Chunk, error) {
	opts = opts.withDefaults()
	var pages []string
	categories := map[string]string{} // module -> _category_.json path
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		if p == "." {
			return nil
		}
		if d.IsDir() {
			if hidden(d.Name()) || d.Name() == "node_modules" {
				return fs.SkipDir
			}
			return nil
		}
		if d.Name() == "_category_.json" {
			categories[path.Dir(p)] = p
			return nil
		}
		if hidden(d.Name()) || !isPage(d.Name()) {
			return nil
		}
		pages = append(pages, p)
		return nil
	})
	if err != nil {
		return rag.Book{}, nil, err
	}
	if len(pages) == 0 {
		return rag.Book{}, nil, errors.New("the book has no .md or .mdx chapters")
	}
	sort.Strings(pages)

	hash := sha256.New()
	var files []*chapterFile
	for _, p := range pages {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return rag.Book{}, nil, fmt.Errorf("read %s: %w", p, err)
		}
		if !utf8.Valid(b) {
			return rag.Book{}, nil, fmt.Errorf("read %s: not valid UTF-8", p)
		}
		fmt.Fprintf(hash, "%s\x00%d\x00", p, len(b))
		hash.Write(b)
		fm, body := splitFrontMatter(b)
		f := &chapterFile{path: p, fm: fm, body: StripMDX(body), position: 1e9}
		if i := strings.IndexByte(p, '/'); i >= 0 {
			f.module = p[:i]
		}
		if v, err := strconv.ParseFloat(fm["sidebar_position"], 64); err == nil {
			f.position = v
		}
		files = append(files, f)
	}
	modules, order, err := readModules(fsys, files, categories, hash)
	if err != nil {
		return rag.Book{}, nil, err
	}
	sort.SliceStable(files, func(i, j int) bool {
		a, b := files[i], files[j]
		if order[a.module] != order[b.module] {
			return order[a.module] < order[b.module]
		}
		if ai, bi := isIndex(a), isIndex(b); ai != bi {
			return ai
		}
		if a.position != b.position {
			return a.position < b.position
		}
		return a.path < b.path
	})

	book := rag.Book{Title: "Textbook", Modules: modules, Hash: hex.EncodeToString(hash.Sum(nil))}
	for _, f := range files {
		if f.module == "" && (isIndex(f) || stem(f.path) == "intro") {
			book.Title = parseChapter(f).title
			break
		}
	}
	// Chapters at the book's root belong to no module; their chunks name
	// the book instead.
	moduleTitle := map[string]string{"": book.Title}
	for _, m := range modules {
		moduleTitle[m.ID] = m.Title
	}
	var chunks []rag.Chunk
	for i, f := range files {
		ch := parseChapter(f)
		chunks = append(chunks, ch.chunks(moduleTitle[f.module], opts)...)
		if opts.Progress != nil {
			opts.Progress(i+1, len(files), f.path)
		}
	}
	return book, chunks, nil
}

func isIndex(f *chapterFile) bool {
	s := stem(f.path)
	return s == "index" || s == "README"
}

func stem(p string) string {
	b := path.Base(p)
	return strings.TrimSuffix(strings.TrimSuffix(b, ".mdx"), ".md")
}

// readModules names the top-level folders: the _category_.json label, else
// the folder's index page title, else the folder name; ordered by the
// category's position, then name.
func readModules(fsys fs.FS, files []*chapterFile, categories map[string]string, hash interface{ Write([]byte) (int, error) }) ([]rag.Module, map[string]float64, error) {
	type mod struct {
		rag.Module
		pos float64
	}
	seen := map[string]*mod{}
	var list []*mod
	for _, f := range files {
		if f.module == "" || seen[f.module] != nil {
			continue
		}
		m := &mod{Module: rag.Module{ID: f.module, Title: f.module}, pos: 1e9}
		seen[f.module] = m
		list = append(list, m)
	}
	for _, f := range files {
		m := seen[f.module]
		if m == nil || path.Dir(f.path) != f.module {
			continue
		}
		if s := stem(f.path); s == "index" || s == "README" {
			if t := parseChapter(f).title; t != "" {
				m.Title = t
			}
			if m.pos == 1e9 {
				m.pos = f.position
			}
		}
	}
	for _, m := range list {
		p, ok := categories[m.ID]
		if !ok {
			continue
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", p, err)
		}
		hash.Write(b)
		var cat struct {
			Label    string   `json:"label"`
			Position *float64 `json:"position"`
		}
		if err := json.Unmarshal(b, &cat); err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", p, err)
		}
		if cat.Label != "" {
			m.Title = cat.Label
		}
		if cat.Position != nil {
			m.pos = *cat.Position
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].pos != list[j].pos {
			return list[i].pos < list[j].pos
		}
		return list[i].ID < list[j].ID
	})
	order := map[string]float64{"": -1}
	var out []rag.Module
	for i, m := range list {
		order[m.ID] = float64(i)
		out = append(out, m.Module)
	}
	return out, order, nil
}
