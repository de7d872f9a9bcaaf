package markdown

import (
	"fmt"
	"io"
	"io/fs"
	"strings"

	"go.yaml.in/yaml/v3"
)

// mkDocsLayout reads an MkDocs site: mkdocs.yml at the book's root, its
// pages in docs_dir ("docs" when that folder exists, else the root, as a
// copied docs folder has it) and their order and titles in nav. Without
// a nav, MkDocs orders the pages by folder and name, as a Docusaurus book
// without _category_.json is read. Pages are served at their path,
// an index page at its folder's.
type mkDocsLayout struct{}

const (
	mkDocsFile    = "mkdocs.yml"
	mkDocsFileAlt = "mkdocs.yaml"
)

// mkDocsConfig is what the tutor reads of mkdocs.yml. The file may hold
// tags such as !!python/name:…, which are left alone.
type mkDocsConfig struct {
	SiteName string    `yaml:"site_name"`
	DocsDir  string    `yaml:"docs_dir"`
	Nav      yaml.Node `yaml:"nav"`
}

func (mkDocsLayout) configs() []string { return []string{mkDocsFile, mkDocsFileAlt} }

func (mkDocsLayout) read(fsys fs.FS, l *listing, hash io.Writer, opts Options) (layout, bool, error) {
	file := mkDocsFile
	if !l.configs[file] {
		file = mkDocsFileAlt
	}
	b, ok, err := readConfig(fsys, l, file, opts)
	if !ok || err != nil {
		return layout{}, false, err
	}
	hash.Write(b)
	lay := layout{name: "MkDocs", route: siteRoute}
	var conf mkDocsConfig
	if err := yaml.Unmarshal(b, &conf); err != nil {
		opts.warn(file, fmt.Errorf("not read, the order comes from folders: not valid YAML: %w", err))
		return lay, true, nil
	}
	base := strings.Trim(conf.DocsDir, "/")
	if base == "" || base == "." {
		base = "docs"
	}
	if !hasFolder(l.pages, base) {
		base = ""
	}
	lay.base = base
	keepUnder(l, base, "", file, "MkDocs site", opts)
	if conf.Nav.Kind == 0 {
		return lay, true, nil
	}
	entries, err := mkDocsNav(&conf.Nav, base, 0)
	if err != nil {
		opts.warn(file, fmt.Errorf("nav not read, the order comes from folders: %w", err))
		return lay, true, nil
	}
	lay.toc = &toc{file: file, entries: entries}
	return lay, true, nil
}

// hasFolder reports a page under dir.
func hasFolder(pages []string, dir string) bool {
	for _, p := range pages {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// mkDocsNav reads a nav list: "page.md", {Title: page.md}, {Title: [...]}
// (a section) or {Title: https://…} (a link, no page), paths under
// docs_dir.
func mkDocsNav(n *yaml.Node, base string, depth int) ([]tocEntry, error) {
	if err := tocList(n, "nav", "a list", "sections", depth); err != nil {
		return nil, err
	}
	var out []tocEntry
	for _, item := range n.Content {
		switch item.Kind {
		case yaml.ScalarNode:
			out = append(out, tocEntry{Ref: item.Value, Path: tocPath(base, item.Value)})
		case yaml.MappingNode:
			for i := 0; i+1 < len(item.Content); i += 2 {
				k, v := item.Content[i], item.Content[i+1]
				e := tocEntry{Title: strings.TrimSpace(k.Value)}
				switch v.Kind {
				case yaml.ScalarNode:
					e.Ref, e.Path = v.Value, tocPath(base, v.Value)
				case yaml.SequenceNode:
					children, err := mkDocsNav(v, base, depth+1)
					if err != nil {
						return nil, err
					}
					e.Children = children
				default:
					return nil, fmt.Errorf("line %d: %q is %s, want a page or a list", v.Line, k.Value, yamlKind(v))
				}
				out = append(out, e)
			}
		default:
			return nil, fmt.Errorf("line %d: a nav entry is %s, want a page or a mapping", item.Line, yamlKind(item))
		}
	}
	return out, nil
}
