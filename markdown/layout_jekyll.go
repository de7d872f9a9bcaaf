package markdown

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/textbook-rag/rag/markdown/page"
	"go.yaml.in/yaml/v3"
)

// jekyllLayout reads a Jekyll site: its pages, and the pages of its
// collections, the "_" folders _config.yml names under collections
// (`_u-dep/` for a collection u-dep). A site copied without its
// _config.yml is known by its pages' Jekyll front matter: a "_" folder
// whose first page has a layout or permalink is a collection. Other "_"
// folders are left out, with a warning. There is no table of contents:
// pages come by folder and name, titled by their front matter. A page is
// served at its front-matter permalink, else at the collection's
// permalink pattern, else at /collection/path.
type jekyllLayout struct{}

// jekyllConfig is what the tutor reads of _config.yml.
type jekyllConfig struct {
	Title          string    `yaml:"title"`
	Collections    yaml.Node `yaml:"collections"`
	CollectionsDir string    `yaml:"collections_dir"`
}

func (jekyllLayout) title(root *os.Root) string {
	return yamlTitle(root, configYMLFile, []string{"title"})
}

func (jekyllLayout) configs() []string { return []string{configYMLFile} }

func (jekyllLayout) read(fsys fs.FS, l *listing, hash io.Writer, opts Options) (layout, bool, error) {
	// permalinks are the collections by folder, with their permalink
	// pattern ("" for Jekyll's default).
	permalinks := map[string]string{}
	// order places the pages a collection's order list names (Jekyll 4),
	// by path; the collection's other pages come after them.
	order := map[string]float64{}
	ordered := map[string]bool{}
	b, hasConfig, err := readConfig(fsys, l, configYMLFile, opts)
	if err != nil {
		return layout{}, false, err
	}
	if hasConfig {
		hash.Write(b)
		var conf jekyllConfig
		if err := yaml.Unmarshal(b, &conf); err != nil {
			opts.warn(configYMLFile, fmt.Errorf("collections not read: not valid YAML: %w", err))
		}
		dir := strings.Trim(conf.CollectionsDir, "/")
		add := func(name, permalink string) {
			folder := path.Join(dir, "_"+name)
			if !fs.ValidPath(folder) {
				opts.warn(configYMLFile, fmt.Errorf("collection %q is in %s, which leads out of the book: left out", name, folder))
				return
			}
			permalinks[folder] = permalink
		}
		switch c := conf.Collections; c.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(c.Content); i += 2 {
				p := ""
				if v := mapValue(c.Content[i+1], "permalink"); v != nil && v.Kind == yaml.ScalarNode {
					p = v.Value
				}
				add(c.Content[i].Value, p)
				if o := mapValue(c.Content[i+1], "order"); o != nil && o.Kind == yaml.SequenceNode {
					folder := path.Join(dir, "_"+c.Content[i].Value)
					ordered[folder] = true
					for n, f := range o.Content {
						if f.Kind == yaml.ScalarNode {
							order[path.Join(folder, f.Value)] = float64(n)
						}
					}
				}
			}
		case yaml.SequenceNode:
			for _, n := range c.Content {
				if n.Kind == yaml.ScalarNode {
					add(n.Value, "")
				}
			}
		}
	} else {
		for _, dir := range frontMatterCollections(fsys, l, opts) {
			permalinks[dir] = ""
		}
		if len(permalinks) == 0 {
			return layout{}, false, nil
		}
	}
	var kept []string
	titles := map[string]string{}
	for _, p := range l.underscored {
		dir := underscoredFolder(p)
		if _, ok := permalinks[dir]; ok {
			l.pages = append(l.pages, p)
			titles[dir] = strings.TrimPrefix(path.Base(dir), "_")
			continue
		}
		kept = append(kept, p)
	}
	l.underscored = kept
	place := func(c *Chapter) {
		if pos, ok := order[c.File]; ok {
			c.Position = pos
		} else if ordered[underscoredFolder(c.File)] {
			c.Position = noPosition
		}
	}
	route := func(c *Chapter) string {
		if p := c.page.FrontMatter["permalink"]; p != "" {
			return jekyllClean(p)
		}
		dir := underscoredFolder(c.File)
		pattern, ok := permalinks[dir]
		if !ok || !strings.HasPrefix(c.File, dir+"/") {
			return siteRoute(c)
		}
		rel := withoutExt(strings.TrimPrefix(c.File, dir+"/"))
		if pattern == "" {
			pattern = "/:collection/:path"
		}
		r := strings.NewReplacer(":collection", strings.TrimPrefix(path.Base(dir), "_"), ":path", rel, ":name", path.Base(rel),
			":title", path.Base(rel), ":output_ext", "").Replace(pattern)
		return jekyllClean(r)
	}
	return layout{name: "Jekyll", route: route, folderTitles: titles, chapter: place}, true, nil
}

// jekyllClean is a permalink as a page path: no slashes at the ends and
// no .html.
func jekyllClean(p string) string {
	p = strings.Trim(p, "/")
	p = strings.TrimSuffix(p, ".html")
	return strings.TrimSuffix(strings.TrimSuffix(p, "/index"), "index")
}

// frontMatterCollections are the "_" folders whose first page (by name)
// has Jekyll front matter: a layout or a permalink.
func frontMatterCollections(fsys fs.FS, l *listing, opts Options) []string {
	first := map[string]string{}
	for _, p := range l.underscored {
		dir := underscoredFolder(p)
		if have, ok := first[dir]; !ok || p < have {
			first[dir] = p
		}
	}
	var out []string
	for dir, p := range first {
		b, err := readFile(fsys, p, opts.MaxFileBytes)
		if err != nil {
			continue // warned about, if it matters, when it is read
		}
		fm, _ := page.SplitFrontMatter(page.CleanText(b))
		if fm["layout"] != "" || fm["permalink"] != "" {
			out = append(out, dir)
		}
	}
	sort.Strings(out)
	return out
}
