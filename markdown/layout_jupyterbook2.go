package markdown

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// jupyterBook2Layout reads a Jupyter Book 2 (MyST) site: myst.yml at the
// book's root, whose project.toc lists the pages (file, with children
// under it; a title with children and no file is a part) and whose
// project.title names the book. A top-level entry with children is a
// module. Pages are served at their path.
type jupyterBook2Layout struct{}

const mystFile = "myst.yml"

func (jupyterBook2Layout) title(root *os.Root) string {
	return yamlTitle(root, mystFile, []string{"project", "title"})
}

func (jupyterBook2Layout) configs() []string { return []string{mystFile} }

func (jupyterBook2Layout) read(fsys fs.FS, l *listing, hash io.Writer, opts Options) (layout, bool, error) {
	b, ok, err := readConfig(fsys, l, mystFile, opts)
	if !ok || err != nil {
		return layout{}, false, err
	}
	hash.Write(b)
	l.pages = append(l.pages, l.notebooks...)
	l.notebooks = nil
	lay := layout{name: "Jupyter Book", route: siteRoute, title: ConfigYAMLTitle(b, [][]string{{"project", "title"}})}
	entries, err := parseMystToc(b)
	if err != nil {
		opts.warn(mystFile, fmt.Errorf("not read, the order comes from folders: %w", err))
		return lay, true, nil
	}
	if entries == nil {
		// MyST without a toc builds every page, in folder order.
		return lay, true, nil
	}
	lay.toc = &toc{file: mystFile, entries: entries, only: true}
	return lay, true, nil
}

// parseMystToc reads project.toc; nil without one.
func parseMystToc(b []byte) ([]tocEntry, error) {
	top, err := yamlMapping(b, "project")
	if err != nil {
		return nil, err
	}
	return fileEntries(mapValue(mapValue(top, "project"), "toc"), "children", 0)
}
