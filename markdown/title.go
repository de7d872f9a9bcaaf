package markdown

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/textbook-rag/rag/markdown/page"
	"go.yaml.in/yaml/v3"
)

// ReadLayoutTitle returns the course's name as the book's layout config
// gives it (an mdBook's book.toml, MkDocs site_name, Jupyter Book's title, Quarto book.title,
// bookdown book_title, a Hugo or Sphinx project's title: each layout's
// title), looked for in the book folder dir and, for an MkDocs docs
// folder, in the folder above; "" when none names one. The files are
// read as a book's files are (inside the folder, no link followed, at
// most 1 MiB); one that cannot be parsed names nothing.
func ReadLayoutTitle(dir string) string {
	if t := titleIn(dir, bookLayouts); t != "" {
		return t
	}
	// `--docs` may name an MkDocs docs_dir: mkdocs.yml is above it.
	return titleIn(filepath.Dir(dir), []bookLayout{mkDocsLayout{}})
}

func titleIn(dir string, layouts []bookLayout) string {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return ""
	}
	defer root.Close()
	for _, bl := range layouts {
		if t := bl.title(root); t != "" {
			return t
		}
	}
	return ""
}

// yamlTitle is the title at the first of keys in the YAML config file,
// "" for none (see ConfigYAMLTitle).
func yamlTitle(root *os.Root, file string, keys ...[]string) string {
	raw, _, err := readInRoot(root, file, maxConfigBytes)
	if err != nil {
		return ""
	}
	return ConfigYAMLTitle(raw, keys)
}

// ConfigYAMLTitle is the first of the keys (each a path into the YAML
// mappings) that holds text, as a course's name; "" when none does or
// the YAML cannot be parsed.
func ConfigYAMLTitle(raw []byte, keys [][]string) string {
	var doc yaml.Node
	if err := yaml.Unmarshal(page.CleanText(raw), &doc); err != nil || len(doc.Content) == 0 {
		return ""
	}
	for _, path := range keys {
		n := doc.Content[0]
		for _, k := range path {
			n = mapValue(n, k)
		}
		if n != nil && n.Kind == yaml.ScalarNode {
			if t := courseOf(strings.TrimSpace(n.Value)); t != "" {
				return t
			}
		}
	}
	return ""
}
