package web

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"path"
	"sort"
	"strings"

	chunker "github.com/textbook-rag/rag/markdown"
)

// book is the reader's view of the book tree the chunker reads
// (markdown.ReadTree): the same modules, chapters, titles and order, so
// the pages and the tutor's sources never disagree.
type book struct {
	// items is the navigation in book order: root chapters and modules.
	items    []navItem
	chapters []*chapter          // every chapter in navigation order
	byRoute  map[string]*chapter // page path under /docs ("module-2/chapter-3")
	aliases  map[string]*chapter // a page's id, where it differs from its path
	byFile   map[string]*chapter // file path under the root, with extension
	modules  map[string]*module  // by folder path and by the folder's page path
}

// navItem is one entry of the top level of the navigation: a root
// chapter or a module.
type navItem struct {
	Chapter *chapter
	Module  *module
}

type module struct {
	ID       string // folder path
	Title    string
	Chapters []*chapter
	landing  *chapter
}

type chapter struct {
	*chunker.Chapter
	URL   string // "/docs/" + the page path
	HTML  template.HTML
	hasH1 bool // the Markdown has its own H1
}

// loadBook reads the book with the chunker's loader and renders its pages.
func loadBook(fsys fs.FS) (*book, error) {
	b := &book{byRoute: map[string]*chapter{}, aliases: map[string]*chapter{}, byFile: map[string]*chapter{}, modules: map[string]*module{}}
	tree, err := chunker.ReadTree(context.Background(), fsys, chunker.DefaultOptions())
	if errors.Is(err, chunker.ErrNoChapters) {
		return b, nil // an empty book shows the welcome page
	}
	if err != nil {
		return nil, err
	}
	wrap := map[*chunker.Chapter]*chapter{}
	var root []*chapter
	for _, tc := range tree.Chapters {
		c := &chapter{Chapter: tc, URL: "/docs/" + tc.Route}
		if tc.Route == "" {
			c.URL = "/"
		}
		wrap[tc] = c
		b.byRoute[tc.Route] = c
		b.byFile[tc.File] = c
		if tc.ID != tc.Route {
			b.aliases[tc.ID] = c // the doc id: older links used it
		}
		if tc.ModuleID == "" {
			root = append(root, c)
		}
	}
	for _, tm := range tree.Modules {
		m := &module{ID: tm.ID, Title: tm.Title}
		for _, tc := range tm.Chapters {
			m.Chapters = append(m.Chapters, wrap[tc])
		}
		m.landing = m.Chapters[0]
		if tm.Index != nil {
			m.landing = wrap[tm.Index]
		}
		b.modules[tm.ID] = m
		if b.modules[tm.Route] == nil {
			b.modules[tm.Route] = m
		}
	}
	b.items = navigation(tree, root, b.modules)
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

// navigation orders the top level as a Docusaurus sidebar does: the root's
// index page first, then root chapters and top folders by position and
// name (naturally: "chapter-9" before "chapter-10"). A top folder that is
// not a module itself lists its modules, in the tree's order, in its place.
func navigation(tree *chunker.Tree, root []*chapter, modules map[string]*module) []navItem {
	type entry struct {
		index bool
		pos   float64
		name  string
		items []navItem
	}
	var entries []entry
	for _, c := range root {
		entries = append(entries, entry{index: c.IsIndex, pos: c.Position, name: path.Base(c.File), items: []navItem{{Chapter: c}}})
	}
	top := map[string]int{}
	for _, tm := range tree.Modules {
		name := strings.SplitN(tm.ID, "/", 2)[0]
		i, ok := top[name]
		if !ok {
			i = len(entries)
			top[name] = i
			pos := tm.Position
			if name != tm.ID {
				pos = tree.FolderPosition(name)
			}
			entries = append(entries, entry{pos: pos, name: name})
		}
		entries[i].items = append(entries[i].items, navItem{Module: modules[tm.ID]})
	}
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.index != b.index {
			return a.index
		}
		if a.pos != b.pos {
			return a.pos < b.pos
		}
		return chunker.NaturalLess(a.name, b.name)
	})
	var items []navItem
	for _, e := range entries {
		items = append(items, e.items...)
	}
	return items
}

// HasH1 reports whether the chapter's Markdown has its own title heading.
func (c *chapter) HasH1() bool { return c.hasH1 }
