package markdown

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/textbook-rag/rag/markdown/page"
)

// Each layout a book can be written in (mdBook and GitBook, doc-builder,
// Docusaurus with a sidebar file, MkDocs, Jupyter Book 1 and 2, Quarto,
// bookdown, Jekyll, Hugo, Sphinx with MyST) is a bookLayout, in a file of
// its own: its config files, its table of contents, its title. A new
// layout is a new file and its place in bookLayouts. A book read by none
// of them is read as a Docusaurus docs folder: folders, _category_.json
// and number prefixes.

// layout is how a book gives its structure.
type layout struct {
	name string // for warnings: "MkDocs", "Jekyll"
	toc  *toc   // nil: folders, _category_.json and number prefixes
	// base is the folder the book's pages live in (an mdBook's "src", an
	// MkDocs docs_dir): ids and page paths are taken under it.
	base   string
	mdBook bool // {{#include}} lines are read
	// route, when set, is the page's path as the site serves it; else
	// Docusaurus's rule (front-matter slug, number prefixes dropped).
	route func(c *Chapter) string
	// chapter, when set, places a page as the site does where the
	// folders do not (a Hugo page bundle is a page of its parent folder).
	chapter func(c *Chapter)
	// arrange, when set, makes the modules and the book order of a
	// layout without a table of contents in its site's own way (Hugo's
	// sections); else folders are modules (assignModules).
	arrange func(t *Tree, chapters []*Chapter, folders map[string]*folder)
	// title is the site's title, "" when the layout names none: the
	// book's title then comes from its root page.
	title string
	// folderTitles name folders that have no index page to name them
	// (a Jekyll collection).
	folderTitles map[string]string
	// vars are the values the site's config gives its pages' placeholders
	// (Hugo params, MyST substitutions).
	vars page.Vars
}

// bookLayout recognises one layout and reads its table of contents.
type bookLayout interface {
	// configs are the config files at the book's root the layout reads:
	// the walk of the book keeps them for it.
	configs() []string
	// read returns the book's layout, ok false when the book is not laid
	// out so. It may take pages out of the listing (a table of contents
	// that is a page, pages the site does not show) or add some (a
	// Jekyll collection, a Jupyter Book's notebooks), with a warning for
	// what it leaves out. What it reads it writes to hash.
	read(fsys fs.FS, l *listing, hash io.Writer, opts Options) (lay layout, ok bool, err error)
	// title is the course's name as the layout's config in the book's
	// folder gives it, "" for none (see ReadLayoutTitle).
	title(root *os.Root) string
}

// bookLayouts are tried in this order; the first that recognises the
// book reads it.
var bookLayouts = []bookLayout{mdBookLayout{}, docBuilderLayout{}, docusaurusSidebarLayout{}, mkDocsLayout{}, jupyterBookLayout{}, jupyterBook2Layout{}, quartoLayout{}, bookdownLayout{}, jekyllLayout{}, hugoLayout{}, sphinxLayout{}}

// configFiles are the layouts' config files, at the book's root.
var configFiles = func() map[string]bool {
	files := map[string]bool{}
	for _, bl := range bookLayouts {
		for _, f := range bl.configs() {
			files[f] = true
		}
	}
	return files
}()

// OwnsLayout reports whether the book declares a layout of its own at its
// root (an mdBook's book.toml, a doc-builder _toctree.yml, mkdocs.yml,
// _toc.yml, _config.yml, _quarto.yml, _bookdown.yml): then a Docusaurus
// site config in the folder above is not its site's, and does not name
// it.
func OwnsLayout(book fs.FS) bool {
	for name := range configFiles {
		if name == "sidebars.js" || name == "sidebars.ts" {
			continue // brought beside a Docusaurus docs folder
		}
		if _, err := fs.Stat(book, name); err == nil {
			return true
		}
	}
	_, err := fs.Stat(book, "book.toml")
	return err == nil
}

// readLayout finds the book's layout. Notebooks and pages in "_" folders
// that the layout does not take are left out with a warning each folder.
func readLayout(fsys fs.FS, l *listing, hash io.Writer, opts Options) (layout, error) {
	lay := layout{name: "Docusaurus"}
	for _, bl := range bookLayouts {
		got, ok, err := bl.read(fsys, l, hash, opts)
		if err != nil {
			return layout{}, err
		}
		if ok {
			lay = got
			break
		}
	}
	leaveOutFolderNavs(fsys, l, opts)
	if len(l.notebooks) > 0 {
		opts.warn(l.notebooks[0], fmt.Errorf("%w: %d notebooks are read in a Jupyter Book only (one with _toc.yml): %s", errSkipped, len(l.notebooks), someOf(l.notebooks, 3)))
		l.notebooks = nil
	}
	if len(l.underscored) > 0 {
		byFolder := map[string][]string{}
		for _, p := range l.underscored {
			top := underscoredFolder(p)
			byFolder[top] = append(byFolder[top], p)
		}
		folders := make([]string, 0, len(byFolder))
		for f := range byFolder {
			folders = append(folders, f)
		}
		sort.Strings(folders)
		for _, f := range folders {
			opts.warn(f, fmt.Errorf("%w: a folder whose name starts with \"_\" holds partials in a %s book, not pages (%d pages)", errSkipped, lay.name, len(byFolder[f])))
		}
		l.underscored = nil
	}
	sort.Strings(l.pages)
	return lay, nil
}

// firstConfig is the first of names the book has at its root, "" for none.
func firstConfig(l *listing, names []string) string {
	for _, f := range names {
		if l.configs[f] {
			return f
		}
	}
	return ""
}

// underscoredFolder is the outermost "_" folder a path is in.
func underscoredFolder(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts[:len(parts)-1] {
		if strings.HasPrefix(s, "_") {
			return strings.Join(parts[:i+1], "/")
		}
	}
	return path.Dir(p)
}

// readConfig reads a layout's config file when the book has one: ok
// false when it has none, or when it cannot be read (with a warning: the
// book is then read without it).
func readConfig(fsys fs.FS, l *listing, name string, opts Options) ([]byte, bool, error) {
	if !l.configs[name] {
		return nil, false, nil
	}
	b, err := readFile(fsys, name, opts.MaxFileBytes)
	if errors.Is(err, errSkipped) {
		opts.warn(name, err)
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return page.CleanText(b), true, nil
}

// keepUnder leaves only the pages under base (the folder a site is built
// from) in the listing; the others go with one warning, naming a few: a
// repository holds many (print editions, notes). drop is a page the
// layout has taken for itself (its SUMMARY.md), "" for none.
func keepUnder(l *listing, base, drop, file, what string, opts Options) {
	kept := l.pages[:0]
	var outside []string
	for _, p := range l.pages {
		switch {
		case p == drop:
		case base != "" && !strings.HasPrefix(p, base+"/"):
			outside = append(outside, p)
		default:
			kept = append(kept, p)
		}
	}
	l.pages = kept
	if len(outside) > 0 {
		opts.warn(file, fmt.Errorf("%d pages outside %s/ are not part of the %s: %s", len(outside), base, what, someOf(outside, 3)))
	}
}

// siteRoute is a page's path on a site that serves each page at its
// file's path without extension, and a folder's index page (index or
// README) at the folder's path: MkDocs, Jupyter Book, Quarto, bookdown.
func siteRoute(c *Chapter) string {
	p := withoutExt(c.File)
	if c.dir == "" {
		p = path.Base(p)
	} else {
		p = path.Join(c.dir, path.Base(p))
	}
	if s := strings.ToLower(path.Base(p)); s == "index" || s == "readme" {
		return parentDir(p)
	}
	return p
}

// knownPages are the pages of the listing by path without extension.
func knownPages(l *listing) map[string]bool {
	known := map[string]bool{}
	for _, p := range l.pages {
		known[pagePath(p)] = true
	}
	for _, p := range l.notebooks {
		known[pagePath(p)] = true
	}
	return known
}
