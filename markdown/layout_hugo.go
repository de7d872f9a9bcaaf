package markdown

import (
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// hugoLayout reads a Hugo site: its config (hugo.toml, hugo.yaml,
// config.toml or config.yaml) at the book's root with its pages under
// content/, or a content folder copied on its own, known by its sections'
// _index.md pages. A folder is a section whose _index.md titles and
// places it; pages are ordered by front-matter weight, then title, and
// served at their path, a section at its folder's, a page bundle's
// index.md at its folder's.
type hugoLayout struct{}

// hugoSection is the stem of a Hugo section's own page.
const hugoSection = "_index"

// hugoConfigs are Hugo's config files, the first found is read. A
// config.toml or config.yaml names a Hugo site only beside a content
// folder or sections.
var hugoConfigs = []string{"hugo.toml", "hugo.yaml", "hugo.yml", "config.toml", "config.yaml", "config.yml"}

func (hugoLayout) configs() []string { return hugoConfigs }

func (hugoLayout) read(fsys fs.FS, l *listing, hash io.Writer, opts Options) (layout, bool, error) {
	file := firstConfig(l, hugoConfigs)
	content := hasFolder(l.pages, "content") || hasFolder(l.sections, "content")
	if len(l.sections) == 0 && (file == "" || !strings.HasPrefix(file, "hugo.") && !content) {
		return layout{}, false, nil
	}
	lay := layout{name: "Hugo", chapter: hugoBundle}
	if file != "" {
		b, ok, err := readConfig(fsys, l, file, opts)
		if err != nil {
			return layout{}, false, err
		}
		if ok {
			hash.Write(b)
			lay.title = hugoTitle(file, b)
		}
		if content {
			lay.base = "content"
		}
	}
	l.pages = append(l.pages, l.sections...)
	l.sections = nil
	keepUnder(l, lay.base, "", file, "Hugo site", opts)
	base := lay.base
	lay.route = func(c *Chapter) string {
		p := strings.TrimPrefix(withoutExt(c.File), base+"/")
		if s := strings.ToLower(path.Base(p)); s == hugoSection || s == "index" {
			return parentDir(p)
		}
		return p
	}
	return lay, true, nil
}

// hugoBundle makes a page bundle's index.md (a folder that is one page,
// with its images) a page of the section above it.
func hugoBundle(c *Chapter) {
	if strings.ToLower(stem(c.File)) == "index" && c.dir != "" {
		c.dir = parentDir(c.dir)
		c.IsIndex = false
	}
}

// hugoTitle is the site's title in a Hugo config, "" for none or one
// that cannot be parsed.
func hugoTitle(file string, b []byte) string {
	var conf struct {
		Title string `toml:"title" yaml:"title"`
	}
	if configNesting(file, b) != nil {
		return ""
	}
	var err error
	if strings.HasSuffix(file, ".toml") {
		_, err = toml.Decode(string(b), &conf)
	} else {
		err = yaml.Unmarshal(b, &conf)
	}
	if err != nil {
		return ""
	}
	return courseOf(strings.TrimSpace(conf.Title))
}

func (hugoLayout) title(root *os.Root) string {
	for _, f := range hugoConfigs {
		if raw, _, err := readInRoot(root, f, maxConfigBytes); err == nil {
			return hugoTitle(f, raw)
		}
	}
	return ""
}
