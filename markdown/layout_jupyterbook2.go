package markdown

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
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
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("want a mapping with project")
	}
	list := mapValue(mapValue(doc.Content[0], "project"), "toc")
	if list == nil {
		return nil, nil
	}
	return mystEntries(list, 0)
}

// mystEntries reads a list of toc entries (file, title, children); url
// and pattern entries name no page of the book.
func mystEntries(n *yaml.Node, depth int) ([]tocEntry, error) {
	if err := tocList(n, "a toc", "a list", "children", depth); err != nil {
		return nil, err
	}
	var out []tocEntry
	for _, item := range n.Content {
		if item.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: an entry is %s, want a mapping (file, title, children)", item.Line, yamlKind(item))
		}
		var e tocEntry
		if f := mapValue(item, "file"); f != nil && f.Kind == yaml.ScalarNode {
			e.Ref, e.Path = f.Value, tocPath("", f.Value)
		}
		if t := mapValue(item, "title"); t != nil && t.Kind == yaml.ScalarNode {
			e.Title = strings.TrimSpace(t.Value)
		}
		if c := mapValue(item, "children"); c != nil {
			children, err := mystEntries(c, depth+1)
			if err != nil {
				return nil, err
			}
			e.Children = children
		}
		if e.Ref == "" && len(e.Children) == 0 {
			continue // a url or a pattern
		}
		out = append(out, e)
	}
	return out, nil
}
