package markdown

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/textbook-rag/rag/markdown/page"

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
	Plugins  yaml.Node `yaml:"plugins"`
}

// plugin is the config of a plugin in the plugins list, nil when the
// site does not use it; a plugin named without options has an empty one.
func (c mkDocsConfig) plugin(name string) *yaml.Node {
	if c.Plugins.Kind != yaml.SequenceNode {
		return nil
	}
	for _, p := range c.Plugins.Content {
		switch {
		case p.Kind == yaml.ScalarNode && p.Value == name:
			return &yaml.Node{Kind: yaml.MappingNode}
		case p.Kind == yaml.MappingNode:
			if v := mapValue(p, name); v != nil {
				return v
			}
		}
	}
	return nil
}

// i18nFolder is the default language's folder of a site translated with
// mkdocs-static-i18n in folders (docs/en/…, docs/sl/…), "" for none: the
// nav names pages under it.
func (c mkDocsConfig) i18nFolder() string {
	p := c.plugin("i18n")
	if p == nil || scalar(mapValue(p, "docs_structure")) != "folder" {
		return ""
	}
	langs := mapValue(p, "languages")
	if langs == nil || langs.Kind != yaml.SequenceNode {
		return ""
	}
	for _, l := range langs.Content {
		if scalar(mapValue(l, "default")) == "true" {
			return scalar(mapValue(l, "locale"))
		}
	}
	return ""
}

// scalar is a YAML node's text, "" for none or one that is no scalar.
func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return strings.TrimSpace(n.Value)
}

func (mkDocsLayout) title(root *os.Root) string {
	if t := yamlTitle(root, mkDocsFile, []string{"site_name"}); t != "" {
		return t
	}
	return yamlTitle(root, mkDocsFileAlt, []string{"site_name"})
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
	if lang := conf.i18nFolder(); lang != "" && hasFolder(l.pages, path.Join(base, lang)) {
		base = path.Join(base, lang)
	}
	lay.base = base
	keepUnder(l, base, "", file, "MkDocs site", opts)
	lit := literateNav{file: file, fsys: fsys, l: l, opts: opts, hash: hash, idx: newNavIndex(l.pages)}
	if p := conf.plugin("literate-nav"); p != nil {
		lit.navFile = "SUMMARY.md"
		if f := scalar(mapValue(p, "nav_file")); f != "" {
			lit.navFile = f
		}
	}
	var entries []tocEntry
	tocFile := file
	if nav, ok := lit.navFileEntries(base); ok {
		// literate-nav: the docs folder's nav file is the nav, and a nav
		// in mkdocs.yml is ignored, as the plugin does.
		lit.idx.expanded[base] = true
		entries, tocFile = nav, path.Join(base, lit.navFile)
	} else if conf.Nav.Kind == 0 {
		if lit.navFile == "" {
			return lay, true, nil
		}
		// literate-nav without a nav file: the docs folder's pages.
		entries = lit.folder(base, 0)
	} else {
		var err error
		if entries, err = mkDocsNav(&conf.Nav, base, 0); err != nil {
			opts.warn(file, fmt.Errorf("nav not read, the order comes from folders: %w", err))
			return lay, true, nil
		}
	}
	lay.toc = &toc{file: tocFile, entries: lit.expand(entries, 0)}
	return lay, true, nil
}

// literateNav expands the nav entries that name a folder ("User Guide:
// user-guide/"), as the literate-nav plugin does: the folder's nav file
// (nav_file), a Markdown list of links, is its nav; without one, its
// pages in order of name, the index first.
type literateNav struct {
	file    string
	navFile string // "" without the plugin
	fsys    fs.FS
	l       *listing
	opts    Options
	hash    io.Writer
	idx     *navIndex
}

func (n literateNav) expand(entries []tocEntry, depth int) []tocEntry {
	for i := range entries {
		e := &entries[i]
		if dir := n.folderOf(e.Ref, e.Path); dir != "" && depth < maxTocDepth {
			e.Ref, e.Path = "", ""
			// A folder named again adds nothing: its pages are placed
			// where it was first named.
			if !n.idx.expanded[dir] {
				e.Children = append(n.folder(dir, depth+1), e.Children...)
			}
		}
		e.Children = n.expand(e.Children, depth+1)
	}
	return entries
}

// folderOf is the folder a nav entry names, "" when it names a page.
func (n literateNav) folderOf(ref, p string) string {
	if ref == "" || p == "" || strings.Contains(ref, "://") {
		return ""
	}
	if strings.HasSuffix(ref, "/") || n.idx.under[p] > 0 && n.idx.paths[p] == 0 {
		return p
	}
	return ""
}

// folder is the nav of one folder: its nav file's links when it has one
// that reads as a list of links, else its pages.
func (n literateNav) folder(dir string, depth int) []tocEntry {
	n.idx.expanded[dir] = true
	if entries, ok := n.navFileEntries(dir); ok {
		return entries
	}
	pages := slices.Clone(n.idx.byDir[dir])
	sort.SliceStable(pages, func(i, j int) bool {
		a, b := isIndexName(stem(pages[i]), dir), isIndexName(stem(pages[j]), dir)
		if a != b {
			return a
		}
		return NaturalLess(pages[i], pages[j])
	})
	out := make([]tocEntry, 0, len(pages))
	for _, p := range pages {
		out = append(out, tocEntry{Ref: p, Path: pagePath(p)})
	}
	return out
}

// navFileEntries reads the folder's nav file, ok false when the plugin is
// off, the folder has none or it does not read as a list of links. A nav
// file read is taken out of the pages: it is navigation, not a page to
// quote.
func (n literateNav) navFileEntries(dir string) ([]tocEntry, bool) {
	if n.navFile == "" {
		return nil, false
	}
	nf := path.Join(dir, n.navFile)
	if !n.idx.files[nf] {
		return nil, false
	}
	b, err := readFile(n.fsys, nf, n.opts.MaxFileBytes)
	if err != nil {
		return nil, false
	}
	entries, _, ok := parseSummary(page.CleanText(b), dir)
	if !ok {
		return nil, false
	}
	n.hash.Write(b)
	n.l.pages = slices.DeleteFunc(n.l.pages, func(p string) bool { return p == nf })
	n.idx.remove(nf)
	return entries, true
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
