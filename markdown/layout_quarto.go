package markdown

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// quartoLayout reads a Quarto book: _quarto.yml at the book's root lists
// its pages in book.chapters (a file, or a part with a title and its own
// chapters) and book.appendices. A part is a module. Pages are served at
// their path. A _quarto.yml without a book (a Quarto website) is read by
// folders, with a warning.
type quartoLayout struct{}

const quartoFile = "_quarto.yml"

func (quartoLayout) title(root *os.Root) string {
	return yamlTitle(root, quartoFile, []string{"book", "title"}, []string{"website", "title"})
}

func (quartoLayout) configs() []string { return []string{quartoFile} }

func (quartoLayout) read(fsys fs.FS, l *listing, hash io.Writer, opts Options) (layout, bool, error) {
	b, ok, err := readConfig(fsys, l, quartoFile, opts)
	if !ok || err != nil {
		return layout{}, false, err
	}
	hash.Write(b)
	lay := layout{name: "Quarto", route: siteRoute}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		opts.warn(quartoFile, fmt.Errorf("not read, the order comes from folders: not valid YAML: %w", err))
		return lay, true, nil
	}
	var book *yaml.Node
	if len(doc.Content) > 0 {
		book = mapValue(doc.Content[0], "book")
	}
	if book == nil {
		opts.warn(quartoFile, fmt.Errorf("names no book.chapters: the order comes from folders"))
		return lay, true, nil
	}
	entries, err := quartoChapters(mapValue(book, "chapters"), 0)
	if err == nil {
		var apx []tocEntry
		apx, err = quartoChapters(mapValue(book, "appendices"), 0)
		if len(apx) > 0 {
			entries = append(entries, tocEntry{Title: "Appendices", Children: apx})
		}
	}
	if err != nil {
		opts.warn(quartoFile, fmt.Errorf("book.chapters not read, the order comes from folders: %w", err))
		return lay, true, nil
	}
	lay.toc = &toc{file: quartoFile, entries: entries, only: true}
	return lay, true, nil
}

// quartoChapters reads a chapters list: "file.qmd", {href, text}, or
// {part: title or file, chapters: [...]}.
func quartoChapters(n *yaml.Node, depth int) ([]tocEntry, error) {
	if n == nil {
		return nil, nil
	}
	if err := tocList(n, "chapters", "a list", "parts", depth); err != nil {
		return nil, err
	}
	var out []tocEntry
	for _, item := range n.Content {
		switch item.Kind {
		case yaml.ScalarNode:
			out = append(out, tocEntry{Ref: item.Value, Path: tocPath("", item.Value)})
		case yaml.MappingNode:
			var e tocEntry
			if p := mapValue(item, "part"); p != nil && p.Kind == yaml.ScalarNode {
				if isPage(p.Value) {
					e.Ref, e.Path = p.Value, tocPath("", p.Value)
				} else {
					e.Title = strings.TrimSpace(p.Value)
				}
			}
			if h := mapValue(item, "href"); h != nil && h.Kind == yaml.ScalarNode {
				e.Ref, e.Path = h.Value, tocPath("", h.Value)
			}
			if t := mapValue(item, "text"); t != nil && t.Kind == yaml.ScalarNode {
				e.Title = strings.TrimSpace(t.Value)
			}
			children, err := quartoChapters(mapValue(item, "chapters"), depth+1)
			if err != nil {
				return nil, err
			}
			e.Children = children
			out = append(out, e)
		default:
			return nil, fmt.Errorf("line %d: a chapter is %s, want a file or a part", item.Line, yamlKind(item))
		}
	}
	return out, nil
}
