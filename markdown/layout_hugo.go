package markdown

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/textbook-rag/rag/markdown/page"
	"go.yaml.in/yaml/v3"
)

// hugoLayout reads a Hugo site: its config (hugo.toml, hugo.yaml,
// config.toml or config.yaml at the book's root, or in the config folder
// config/_default/, as Docsy sites keep it) with its pages under content/
// (or the config's contentDir), or a content folder copied on its own,
// known by its sections' _index.md pages. A folder is a section whose
// _index.md titles and places it; pages are ordered by front-matter
// weight, then title, and served at their path, a section at its
// folder's, a page bundle's index.md at its folder's. A site in several
// languages is read in its default one (defaultContentLanguage, else
// English): the content folder of that language (content/en/), and of
// pages translated in place (page.fa.md) the untranslated page; the other
// languages are left out with one warning.
type hugoLayout struct{}

// hugoSection is the stem of a Hugo section's own page.
const hugoSection = "_index"

// hugoConfigFolder is where a site keeps its config as several files.
const hugoConfigFolder = "config/_default/"

// hugoConfigs are Hugo's config files, the first found is read. A
// config.toml or config.yaml names a Hugo site only beside a content
// folder or sections. (Plain lists: configFiles reads them at init.)
var hugoConfigs = []string{"hugo.toml", "hugo.yaml", "hugo.yml", "config.toml", "config.yaml", "config.yml",
	hugoConfigFolder + "hugo.toml", hugoConfigFolder + "hugo.yaml", hugoConfigFolder + "hugo.yml",
	hugoConfigFolder + "config.toml", hugoConfigFolder + "config.yaml", hugoConfigFolder + "config.yml"}

// hugoParamsFiles and hugoLanguagesFiles are a config folder's files for
// the site's params and languages, read beside its main file.
var (
	hugoParamsFiles    = []string{hugoConfigFolder + "params.toml", hugoConfigFolder + "params.yaml", hugoConfigFolder + "params.yml"}
	hugoLanguagesFiles = []string{hugoConfigFolder + "languages.toml", hugoConfigFolder + "languages.yaml", hugoConfigFolder + "languages.yml"}
)

// hugoLanguage is a language code as Hugo names translations: "fa",
// "pt-br", "zh-cn".
var hugoLanguage = regexp.MustCompile(`^[a-z]{2,3}(?:-[a-z0-9]{2,8})?$`)

func (hugoLayout) configs() []string {
	return append(append(append([]string(nil), hugoConfigs...), hugoParamsFiles...), hugoLanguagesFiles...)
}

func (hugoLayout) read(fsys fs.FS, l *listing, hash io.Writer, opts Options) (layout, bool, error) {
	file := firstConfig(l, hugoConfigs)
	site := hugoSite{contentDir: "content", lang: "en"}
	if file != "" {
		if err := site.read(fsys, l, file, hash, opts); err != nil {
			return layout{}, false, err
		}
	}
	content := hasFolder(l.pages, site.contentDir) || hasFolder(l.sections, site.contentDir)
	if len(l.sections) == 0 && (file == "" || !strings.HasPrefix(path.Base(file), "hugo.") && !content) {
		return layout{}, false, nil
	}
	lay := layout{name: "Hugo", chapter: hugoBundle, title: site.title, vars: page.Vars{Params: site.params}}
	l.pages = append(l.pages, l.sections...)
	l.sections = nil
	if file != "" && content {
		lay.base = site.contentDir
		if d := site.langDir(l); d != "" {
			lay.base = d
		}
	}
	site.dropOtherLanguages(l, lay.base, file, opts)
	keepUnder(l, lay.base, "", file, "Hugo site", opts)
	base := lay.base
	lang := site.lang
	lay.route = func(c *Chapter) string {
		p := strings.TrimPrefix(withoutExt(c.File), base+"/")
		p = strings.TrimSuffix(p, "."+lang)
		if s := strings.ToLower(path.Base(p)); s == hugoSection || s == "index" {
			return parentDir(p)
		}
		return p
	}
	return lay, true, nil
}

// hugoSite is what a Hugo config says that the book needs.
type hugoSite struct {
	title      string
	contentDir string
	// lang is the default content language; languages are the ones the
	// config names, with the content folder each has, "" for the site's.
	lang      string
	languages map[string]string
	// params are the site's params by dotted lower-case key, for
	// {{% param "x" %}}.
	params map[string]string
}

// read reads the main config file and, in a config folder, its params
// and languages files. A file that cannot be parsed is warned about and
// names nothing.
func (s *hugoSite) read(fsys fs.FS, l *listing, file string, hash io.Writer, opts Options) error {
	conf, err := s.decodeFile(fsys, l, file, hash, opts)
	if err != nil {
		return err
	}
	s.params = map[string]string{}
	if v, ok := conf["contentdir"].(string); ok && fs.ValidPath(path.Clean(v)) {
		s.contentDir = path.Clean(v)
	}
	if v, ok := conf["defaultcontentlanguage"].(string); ok && v != "" {
		s.lang = strings.ToLower(v)
	}
	langs, _ := conf["languages"].(map[string]any)
	if strings.HasPrefix(file, hugoConfigFolder) {
		if f := firstConfig(l, hugoLanguagesFiles); f != "" {
			if more, err := s.decodeFile(fsys, l, f, hash, opts); err != nil {
				return err
			} else if langs == nil {
				langs = more
			}
		}
		if f := firstConfig(l, hugoParamsFiles); f != "" {
			more, err := s.decodeFile(fsys, l, f, hash, opts)
			if err != nil {
				return err
			}
			flattenParams("", more, s.params)
		}
	}
	if p, ok := conf["params"].(map[string]any); ok {
		flattenParams("", p, s.params)
	}
	s.languages = map[string]string{}
	for code, v := range langs {
		dir := ""
		lc, _ := v.(map[string]any)
		if d, ok := lc["contentdir"].(string); ok && fs.ValidPath(path.Clean(d)) {
			dir = path.Clean(d)
		}
		s.languages[strings.ToLower(code)] = dir
		if strings.ToLower(code) == s.lang {
			if p, ok := lc["params"].(map[string]any); ok {
				flattenParams("", p, s.params)
			}
			if t, ok := lc["title"].(string); ok {
				s.title = courseOf(strings.TrimSpace(t))
			}
		}
	}
	if t, ok := conf["title"].(string); ok && courseOf(strings.TrimSpace(t)) != "" {
		s.title = courseOf(strings.TrimSpace(t))
	}
	return nil
}

// decodeFile reads one config file into a map whose keys are lower case
// (Hugo's keys are case-insensitive).
func (s *hugoSite) decodeFile(fsys fs.FS, l *listing, file string, hash io.Writer, opts Options) (map[string]any, error) {
	b, ok, err := readConfig(fsys, l, file, opts)
	if err != nil || !ok {
		return nil, err
	}
	hash.Write(b)
	conf, err := decodeHugo(file, b)
	if err != nil {
		opts.warn(file, fmt.Errorf("cannot be parsed, read without it: %v", err))
		return nil, nil
	}
	return conf, nil
}

// decodeHugo parses a TOML or YAML config, keys made lower case.
func decodeHugo(file string, b []byte) (map[string]any, error) {
	if err := configNesting(file, b); err != nil {
		return nil, err
	}
	var conf map[string]any
	var err error
	if strings.HasSuffix(file, ".toml") {
		_, err = toml.Decode(string(b), &conf)
	} else {
		err = yaml.Unmarshal(b, &conf)
	}
	if err != nil {
		return nil, err
	}
	return lowerKeys(conf, 0).(map[string]any), nil
}

// lowerKeys makes a decoded config's keys lower case, to a config's depth.
func lowerKeys(v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil && depth == 0 {
			return map[string]any{}
		}
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		if depth < maxTocDepth {
			x = lowerKeys(x, depth+1)
		}
		out[strings.ToLower(k)] = x
	}
	return out
}

// flattenParams writes a params table's plain values under their dotted
// keys ("ui.sidebar_menu_compact").
func flattenParams(prefix string, m map[string]any, out map[string]string) {
	for k, v := range m {
		key := prefix + k
		switch x := v.(type) {
		case map[string]any:
			if strings.Count(key, ".") < maxTocDepth {
				flattenParams(key+".", x, out)
			}
		case string:
			out[key] = x
		case bool, int, int64, float64:
			out[key] = fmt.Sprint(x)
		}
	}
}

// langDir is the default language's content folder when the site keeps
// one folder per language (content/en/), "" when it does not.
func (s *hugoSite) langDir(l *listing) string {
	if d := s.languages[s.lang]; d != "" && hasFolder(l.pages, d) {
		return d
	}
	if d := s.contentDir + "/" + s.lang; hasFolder(l.pages, d) {
		return d
	}
	return ""
}

// dropOtherLanguages leaves out the pages of languages other than the
// default: the other languages' content folders and the pages translated
// in place (page.fa.md beside page.md), with one warning.
func (s *hugoSite) dropOtherLanguages(l *listing, base, file string, opts Options) {
	otherDirs := map[string]bool{}
	if base != "" && base != s.contentDir {
		for code, d := range s.languages {
			if code != s.lang {
				if d == "" {
					d = s.contentDir + "/" + code
				}
				if d != base && !strings.HasPrefix(base+"/", d+"/") {
					otherDirs[d] = true // a folder holding the default's is not another language's
				}
			}
		}
	}
	byPath := map[string]bool{}
	for _, p := range l.pages {
		byPath[pagePath(p)] = true
	}
	kept := l.pages[:0]
	langs := map[string]bool{}
	var left []string
	for _, p := range l.pages {
		code := s.translation(p, byPath)
		for d := range otherDirs {
			if strings.HasPrefix(p, d+"/") {
				code = path.Base(d)
			}
		}
		if code == "" {
			kept = append(kept, p)
			continue
		}
		langs[code] = true
		left = append(left, p)
	}
	l.pages = kept
	if len(left) == 0 {
		return
	}
	codes := make([]string, 0, len(langs))
	for c := range langs {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	if file == "" {
		file = left[0]
	}
	opts.warn(file, fmt.Errorf("read in the site's default language (%s): %d pages in other languages (%s) left out: %s",
		s.lang, len(left), strings.Join(codes, ", "), someOf(left, 3)))
}

// translation is the language of a page translated in place
// (page.fa.md, _index.zh-cn.md), "" for a page in the default language:
// a suffix is a language when the config names it, or when the page it
// translates is beside it.
func (s *hugoSite) translation(p string, byPath map[string]bool) string {
	st := withoutExt(p)
	dot := strings.LastIndexByte(path.Base(st), '.')
	if dot < 0 {
		return ""
	}
	code := strings.ToLower(path.Base(st)[dot+1:])
	if code == s.lang || !hugoLanguage.MatchString(code) {
		return ""
	}
	untranslated := strings.TrimSuffix(st, path.Base(st)[dot:])
	if _, named := s.languages[code]; named || byPath[untranslated] || byPath[untranslated+"."+s.lang] {
		return code
	}
	return ""
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
// that cannot be parsed: its title, else its default language's, in the
// config or in its folder's languages file (langs, nil for none).
func hugoTitle(file string, b []byte, langs map[string]any) string {
	conf, err := decodeHugo(file, b)
	if err != nil {
		return ""
	}
	if t, ok := conf["title"].(string); ok && courseOf(strings.TrimSpace(t)) != "" {
		return courseOf(strings.TrimSpace(t))
	}
	lang := "en"
	if v, ok := conf["defaultcontentlanguage"].(string); ok && v != "" {
		lang = strings.ToLower(v)
	}
	if l, ok := conf["languages"].(map[string]any); ok {
		langs = l
	}
	for code, v := range langs {
		if lc, ok := v.(map[string]any); ok && strings.ToLower(code) == lang {
			if t, ok := lc["title"].(string); ok {
				return courseOf(strings.TrimSpace(t))
			}
		}
	}
	return ""
}

func (hugoLayout) title(root *os.Root) string {
	for _, f := range hugoConfigs {
		raw, _, err := readInRoot(root, f, maxConfigBytes)
		if err != nil {
			continue
		}
		var langs map[string]any
		for _, lf := range hugoLanguagesFiles {
			if lraw, _, err := readInRoot(root, lf, maxConfigBytes); err == nil && strings.HasPrefix(f, hugoConfigFolder) {
				langs, _ = decodeHugo(lf, page.CleanText(lraw))
				break
			}
		}
		return hugoTitle(f, page.CleanText(raw), langs)
	}
	return ""
}
