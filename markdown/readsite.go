package markdown

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/textbook-rag/rag"
)

// Site is a book as one read of it gives it: the course's name, the pages
// in the site's own order, and what the read warned of. The index's chunks
// (Chunks) and the reader's page (Tree) both come from it, so the two
// never show two versions or two orders of the book.
type Site struct {
	// Title is the course's name: see courseTitle for where it comes from.
	Title string
	// Tree is the book's modules and pages in the site's order.
	Tree *Tree
	// Files are the book's files as read, in memory: what the index is
	// fingerprinted by.
	Files fs.FS
	// Warnings are what reading the book's structure warned of (pages
	// left out, a table of contents naming no page), each "path: why":
	// kept with the index. Warnings about files that could not be read
	// are only told to Options.Warn.
	Warnings []string

	opts Options
}

// Source is where a book is read from: a folder, or files in memory.
type Source struct {
	// Dir is the book's folder. The folder above it may hold the site's
	// config (a Docusaurus site's, an MkDocs docs_dir's mkdocs.yml).
	Dir string
	// FS, when Dir is "", holds the book, and Site the site around it
	// (the built-in sample's docs and its site config).
	FS, Site fs.FS
	// Name is the course's name when nothing in the book gives one; ""
	// names it after Dir (see FolderTitle).
	Name string
}

// ReadSite reads the book at src once, into memory, and its structure:
// the one call that tells what a book is. Files that cannot be read and
// what the layout leaves out are told to opts.Warn; a book without a page
// to read is an error that names its folder (--docs may name the wrong
// one).
func ReadSite(ctx context.Context, src Source, opts Options) (*Site, error) {
	opts = opts.withDefaults()
	files, err := readSource(ctx, src, opts)
	if err != nil {
		return nil, err
	}
	if src.Dir != "" {
		WarnNestedConfigs(src.Dir, opts.warn)
	}
	s := &Site{Title: courseTitle(src, files), Files: files, opts: opts}
	layoutOpts := opts
	layoutOpts.Warn = func(path string, err error) {
		opts.warn(path, err)
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %v", path, err))
	}
	s.Tree, err = ReadTree(ctx, files, layoutOpts)
	if src.Dir != "" && (errors.Is(err, ErrNoChapters) || errors.Is(err, ErrRestructuredText)) {
		return nil, fmt.Errorf("%s: %w", src.Dir, err)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Chunks cuts the site's pages into chunks, in book order, and returns
// what the book is (its title, modules and content hash) with them. The
// options ReadSite was given size the chunks and hear of the progress.
func (s *Site) Chunks(ctx context.Context) (rag.Book, []rag.Chunk, error) {
	return chunkTree(ctx, s.Tree, s.opts)
}

// readSource reads the book into memory: a folder through ReadDir, with
// the site config beside it that the layout reads (see
// BringSiteConfig), or a book held in memory through ReadFS.
func readSource(ctx context.Context, src Source, opts Options) (fs.FS, error) {
	if src.Dir == "" {
		return ReadFS(ctx, src.FS, opts)
	}
	files, err := ReadDir(ctx, src.Dir, opts)
	if err != nil {
		return nil, err
	}
	return BringSiteConfig(files, src.Dir), nil
}

// courseTitle names the course after the book read into files: the title
// of the Docusaurus site the book is the docs folder of, else that of
// the layout's config (an mdBook's book.toml, MkDocs site_name, Quarto
// book.title, bookdown book_title, Jupyter Book or Jekyll title, ...:
// each layout's title, see ReadLayoutTitle), else the title of the book's
// root page, else src.Name or the book folder's name. A book held in
// memory is named by its site's config, else its root page.
func courseTitle(src Source, files fs.FS) string {
	var titles []func() string
	if src.Dir == "" {
		titles = []func() string{
			func() string { return siteTitleIn(src.Site) },
			func() string { return RootPageTitle(files) },
		}
	} else {
		titles = []func() string{
			func() string { return siteTitleAbove(src.Dir, files) },
			func() string { return ReadLayoutTitle(src.Dir) },
			func() string { return RootPageTitle(files) },
			func() string { return src.Name },
			func() string { return FolderTitle(src.Dir) },
		}
	}
	for _, title := range titles {
		if t := title(); t != "" {
			return t
		}
	}
	return src.Name
}

// siteTitleIn is SiteTitle of a site that may be nil (none).
func siteTitleIn(site fs.FS) string {
	if site == nil {
		return ""
	}
	return SiteTitle(site)
}
