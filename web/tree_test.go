package web_test

import (
	"context"
	"errors"
	"io/fs"

	"github.com/textbook-rag/rag/markdown"
	"github.com/textbook-rag/rag/web"
)

// newPage is web.New for the book in fsys, read as the server reads
// it; a folder without pages is the empty book.
func newPage(fsys fs.FS, opts web.Options) (*web.Handler, error) {
	s, err := markdown.ReadSite(context.Background(), markdown.Source{FS: fsys}, markdown.Options{})
	if errors.Is(err, markdown.ErrNoChapters) {
		return web.New(nil, opts)
	}
	if err != nil {
		return nil, err
	}
	return web.New(s.Tree, opts)
}
