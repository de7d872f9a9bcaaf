package markdown

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// docBuilderLayout reads a Hugging Face doc-builder course: its
// _toctree.yml lists the pages. A _toctree.yml that cannot be read as one
// is an error naming the line and the field.
type docBuilderLayout struct{}

// title: a doc-builder book names itself nowhere the tutor reads.
func (docBuilderLayout) title(root *os.Root) string {
	return ""
}

func (docBuilderLayout) configs() []string { return []string{toctreeFile} }

func (docBuilderLayout) read(fsys fs.FS, l *listing, hash io.Writer, opts Options) (layout, bool, error) {
	b, ok, err := readConfig(fsys, l, toctreeFile, opts)
	if !ok || err != nil {
		return layout{}, false, err
	}
	entries, err := parseToctree(b)
	if err != nil {
		return layout{}, false, fmt.Errorf("read %s: %w", toctreeFile, err)
	}
	hash.Write(b)
	return layout{name: "doc-builder", toc: &toc{file: toctreeFile, entries: entries}}, true, nil
}
