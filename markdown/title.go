package markdown

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/textbook-rag/rag/markdown/page"
	"go.yaml.in/yaml/v3"
)

// layoutTitles are the config files that name a book, in the order they
// are looked for, and the keys (a path into the YAML) that hold its
// title: MkDocs site_name, Quarto book.title (or a website's title),
// bookdown's book_title, Jupyter Book's and Jekyll's title.
var layoutTitles = []struct {
	file string
	keys [][]string
}{
	{mkDocsFile, [][]string{{"site_name"}}},
	{mkDocsFileAlt, [][]string{{"site_name"}}},
	{quartoFile, [][]string{{"book", "title"}, {"website", "title"}}},
	{bookdownFile, [][]string{{"book_title"}}},
	{configYMLFile, [][]string{{"title"}}},
	{mystFile, [][]string{{"project", "title"}}},
}

// ReadLayoutTitle returns the course's name as the book's layout config
// gives it (see layoutTitles), looked for in the book folder dir and, for
// an MkDocs docs folder, in the folder above; "" when none names one. The
// files are read as a book's files are (inside the folder, no link
// followed, at most 1 MiB); one that cannot be parsed names nothing.
func ReadLayoutTitle(dir string) string {
	if t := layoutTitleIn(dir, layoutTitles); t != "" {
		return t
	}
	for _, read := range []func(string) string{readHugoTitle, readSphinxTitle} {
		if t := read(dir); t != "" {
			return t
		}
	}
	// `--docs` may name an MkDocs docs_dir: mkdocs.yml is above it.
	return layoutTitleIn(filepath.Dir(dir), layoutTitles[:2])
}

func layoutTitleIn(dir string, configs []struct {
	file string
	keys [][]string
}) string {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return ""
	}
	defer root.Close()
	for _, c := range configs {
		raw, _, err := readInRoot(root, c.file, maxConfigBytes)
		if err != nil {
			continue
		}
		if t := ConfigYAMLTitle(raw, c.keys); t != "" {
			return t
		}
	}
	return ""
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
