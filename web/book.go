package web

import (
	"fmt"
	"html/template"

	chunker "github.com/textbook-rag/rag/markdown"
)

// book is the reader's view of the book tree the chunker reads
// (markdown.ReadSite): the same modules, chapters, titles and order, so
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

// loadBook renders the pages of the book tree the chunker read; a nil
// tree is an empty book, which shows the welcome page.
func loadBook(tree *chunker.Tree) (*book, error) {
	b := &book{byRoute: map[string]*chapter{}, aliases: map[string]*chapter{}, byFile: map[string]*chapter{}, modules: map[string]*module{}}
	if tree == nil {
		return b, nil
	}
	wrap := map[*chunker.Chapter]*chapter{}
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
	}
	wrapModule := map[*chunker.Module]*module{}
	for _, tm := range tree.Modules {
		m := &module{ID: tm.ID, Title: tm.Title}
		for _, tc := range tm.Chapters {
			m.Chapters = append(m.Chapters, wrap[tc])
		}
		m.landing = m.Chapters[0]
		if tm.Index != nil {
			m.landing = wrap[tm.Index]
		}
		wrapModule[tm] = m
		b.modules[tm.ID] = m
		if b.modules[tm.Route] == nil {
			b.modules[tm.Route] = m
		}
	}
	// The navigation is the tree's, in the tree's order.
	for _, e := range tree.Nav {
		if e.Chapter != nil {
			b.items = append(b.items, navItem{Chapter: wrap[e.Chapter]})
			b.chapters = append(b.chapters, wrap[e.Chapter])
		} else {
			m := wrapModule[e.Module]
			b.items = append(b.items, navItem{Module: m})
			b.chapters = append(b.chapters, m.Chapters...)
		}
	}
	for _, c := range b.chapters {
		if err := b.render(c); err != nil {
			return nil, fmt.Errorf("render %s: %w", c.File, err)
		}
	}
	return b, nil
}

// HasH1 reports whether the chapter's Markdown has its own title heading.
func (c *chapter) HasH1() bool { return c.hasH1 }
