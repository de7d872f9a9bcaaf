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

// jupyterBookLayout reads a Jupyter Book: _toc.yml at the book's root
// lists its pages, MyST Markdown and notebooks (.ipynb), by path without
// extension. Both formats are read: jb-book (root, then parts with a
// caption and chapters, or chapters) and jb-article (root, then
// sections); a part is a module, titled by its caption. Pages are served
// at their path.
type jupyterBookLayout struct{}

const (
	jbTocFile = "_toc.yml"
	// configYMLFile is Jupyter Book's config, and Jekyll's.
	configYMLFile = "_config.yml"
)

func (jupyterBookLayout) title(root *os.Root) string {
	return yamlTitle(root, configYMLFile, []string{"title"})
}

func (jupyterBookLayout) configs() []string { return []string{jbTocFile, configYMLFile} }

func (jupyterBookLayout) read(fsys fs.FS, l *listing, hash io.Writer, opts Options) (layout, bool, error) {
	b, ok, err := readConfig(fsys, l, jbTocFile, opts)
	if !ok || err != nil {
		return layout{}, false, err
	}
	hash.Write(b)
	// The notebooks are pages of the book.
	l.pages = append(l.pages, l.notebooks...)
	l.notebooks = nil
	lay := layout{name: "Jupyter Book", route: siteRoute}
	entries, err := parseJBToc(b)
	if err != nil {
		opts.warn(jbTocFile, fmt.Errorf("not read, the order comes from folders: %w", err))
		return lay, true, nil
	}
	lay.toc = &toc{file: jbTocFile, entries: entries, only: true}
	return lay, true, nil
}

// parseJBToc reads a _toc.yml: the root page first, then its parts,
// chapters or sections.
func parseJBToc(b []byte) ([]tocEntry, error) {
	top, err := yamlMapping(b, "root and parts, chapters or sections")
	if err != nil {
		return nil, err
	}
	var out []tocEntry
	if root := mapValue(top, "root"); root != nil && root.Kind == yaml.ScalarNode {
		out = append(out, tocEntry{Ref: root.Value, Path: tocPath("", root.Value)})
	}
	if parts := mapValue(top, "parts"); parts != nil {
		if parts.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("line %d: \"parts\" is %s, want a list", parts.Line, yamlKind(parts))
		}
		for _, p := range parts.Content {
			if p.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("line %d: a part is %s, want a mapping (caption, chapters)", p.Line, yamlKind(p))
			}
			e := tocEntry{}
			if c := mapValue(p, "caption"); c != nil && c.Kind == yaml.ScalarNode {
				e.Title = strings.TrimSpace(c.Value)
			}
			children, err := fileEntries(mapValue(p, "chapters"), "sections", 0)
			if err != nil {
				return nil, err
			}
			e.Children = children
			out = append(out, e)
		}
		return out, nil
	}
	for _, key := range []string{"chapters", "sections"} {
		if n := mapValue(top, key); n != nil {
			es, err := fileEntries(n, "sections", 0)
			if err != nil {
				return nil, err
			}
			out = append(out, es...)
		}
	}
	return out, nil
}

// fileEntries reads a list of pages: {file, title, and the entries under
// it at children}, as Jupyter Book's sections and MyST's children are;
// url, glob and pattern entries name no page of the book.
func fileEntries(n *yaml.Node, children string, depth int) ([]tocEntry, error) {
	if n == nil {
		return nil, nil
	}
	if err := tocList(n, "a list of pages", "a list", children, depth); err != nil {
		return nil, err
	}
	var out []tocEntry
	for _, item := range n.Content {
		if item.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: an entry is %s, want a mapping (file, title, %s)", item.Line, yamlKind(item), children)
		}
		var e tocEntry
		if f := mapValue(item, "file"); f != nil && f.Kind == yaml.ScalarNode {
			e.Ref, e.Path = f.Value, tocPath("", f.Value)
		}
		if t := mapValue(item, "title"); t != nil && t.Kind == yaml.ScalarNode {
			e.Title = strings.TrimSpace(t.Value)
		}
		under, err := fileEntries(mapValue(item, children), children, depth+1)
		if err != nil {
			return nil, err
		}
		e.Children = under
		if e.Ref == "" && len(under) == 0 {
			continue // a url, a glob or a pattern
		}
		out = append(out, e)
	}
	return out, nil
}

// yamlMapping parses a YAML config whose top is a mapping; want says
// what the mapping holds, for the error.
func yamlMapping(b []byte, want string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("want a mapping with " + want)
	}
	return doc.Content[0], nil
}

// mapValue is the value of key in a YAML mapping, nil when it has none.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
