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
	"unicode"
	"unicode/utf8"

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
	lay := layout{name: "Hugo", chapter: hugoChapter(site.title), arrange: hugoArrange, title: site.title, vars: page.Vars{Params: site.params}}
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
	dropResources(l, lay.base, file, opts)
	if lay.base != "" || file == "" {
		warnUnread(fsys, l, lay.base, file, opts)
	}
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

// hugoUnread are the content formats Hugo renders that the book does not
// read (AsciiDoc, Org, Pandoc and HTML pages, through an external tool or
// as HTML): left out with one warning. (.rst pages are warned about as
// in any book.)
var hugoUnread = []string{".adoc", ".asciidoc", ".ad", ".org", ".pandoc", ".pdc", ".html", ".htm"}

// leafBundles are the folders under the content folder base that hold an
// index.md: each is one page, and the other files in it, Markdown ones
// too, are its resources (images, snippets a shortcode includes), not
// pages. The content folder itself is none.
func leafBundles(pages []string, base string) map[string]bool {
	leaves := map[string]bool{}
	for _, p := range pages {
		if d := parentDir(p); d != base && strings.ToLower(stem(p)) == "index" {
			leaves[d] = true
		}
	}
	return leaves
}

// inLeaf is the leaf bundle p lies in below its index page, "" for none.
func inLeaf(p string, leaves map[string]bool) string {
	for d := parentDir(p); d != ""; d = parentDir(d) {
		if leaves[d] && !(parentDir(p) == d && strings.ToLower(stem(p)) == "index") {
			return d
		}
	}
	return ""
}

// dropResources leaves out of the listing the pages that are a leaf
// bundle's resources, with one warning.
func dropResources(l *listing, base, file string, opts Options) {
	leaves := leafBundles(l.pages, base)
	if len(leaves) == 0 {
		return
	}
	kept := l.pages[:0]
	var left []string
	for _, p := range l.pages {
		if inLeaf(p, leaves) != "" {
			left = append(left, p)
			continue
		}
		kept = append(kept, p)
	}
	l.pages = kept
	if len(left) > 0 {
		opts.warn(warnFile(file, left), fmt.Errorf("%w: %d files in page bundles (a folder with an index.md is one page) are the bundle's resources, not pages: %s",
			errSkipped, len(left), someOf(left, 3)))
	}
}

// warnUnread warns, once, about the content pages under base in formats
// the book does not read (hugoUnread). A leaf bundle's files are its
// resources, not pages.
func warnUnread(fsys fs.FS, l *listing, base, file string, opts Options) {
	root := base
	if root == "" {
		root = "."
	}
	leaves := leafBundles(l.pages, base)
	var unread []string
	_ = fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // the book's walk reported what it could not read
		}
		if d.IsDir() {
			if p != root && hidden(d.Name()) || d.Name() == "node_modules" {
				return fs.SkipDir
			}
			return nil
		}
		for _, ext := range hugoUnread {
			if strings.EqualFold(path.Ext(p), ext) && inLeaf(p, leaves) == "" {
				unread = append(unread, p)
			}
		}
		return nil
	})
	if len(unread) > 0 {
		opts.warn(warnFile(file, unread), fmt.Errorf("%w: %d content pages in formats that are not read (AsciiDoc, Org, Pandoc, HTML; write them in Markdown to have them read): %s",
			errSkipped, len(unread), someOf(unread, 3)))
	}
}

// warnFile is the file a warning about the pages names: the site's
// config, else the first of them.
func warnFile(config string, pages []string) string {
	if config != "" {
		return config
	}
	return pages[0]
}

// humanTitle is the title a section without one gets from its folder's
// name: words split at dashes and underscores, the first capitalised
// ("getting-started" → "Getting started"). Hugo's own, for a section
// without an _index.md, is the name title-cased with its dashes kept
// ("Getting-Started"); with an _index.md that has no title it is empty.
func humanTitle(name string) string {
	name = strings.Join(strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' || unicode.IsSpace(r) }), " ")
	r, n := utf8.DecodeRuneInString(name)
	if n == 0 {
		return name
	}
	return string(unicode.ToUpper(r)) + name[n:]
}

// hugoChapter places a Hugo page: its menu label is its linkTitle; a
// page bundle's index.md is a page of the section above it (see
// hugoBundle); a section's _index.md without a title is titled by its
// linkTitle, else by its folder's name (the home page's by the site's
// title).
func hugoChapter(siteTitle string) func(c *Chapter) {
	return func(c *Chapter) {
		if t := c.page.FrontMatter["linkTitle"]; t != "" && c.page.FrontMatter["sidebar_label"] == "" {
			c.Label = t
		}
		hugoBundle(c)
		// A section's page is its _index.md: a README.md or a page named
		// like its folder is one of its pages.
		c.IsIndex = strings.ToLower(stem(c.File)) == hugoSection
		if !c.IsIndex || c.page.Title() != "" {
			return
		}
		t := c.page.FrontMatter["linkTitle"]
		switch {
		case t != "":
		case c.dir != "":
			t = humanTitle(path.Base(c.dir))
		default:
			t = siteTitle
		}
		if t != "" {
			c.Title, c.Label = t, t
		}
	}
}

// hugoItem is a page or a sub-section of a Hugo section, with what
// Hugo's default order compares.
type hugoItem struct {
	chapter *Chapter // nil for a sub-section
	dir     string   // the sub-section's folder
	weight  float64  // noPosition: none (weight 0)
	date    string
	label   string // linkTitle, else title
	path    string
}

// hugoLess is Hugo's default order of a section's pages and sub-sections:
// by weight (none last), then date (newest first; none last), then
// linkTitle (else title), then path.
func hugoLess(a, b hugoItem) bool {
	if a.weight != b.weight {
		return a.weight < b.weight
	}
	if a.date != b.date {
		return a.date > b.date
	}
	if la, lb := strings.ToLower(a.label), strings.ToLower(b.label); la != lb {
		return la < lb
	}
	return a.path < b.path
}

func pageItem(c *Chapter) hugoItem {
	return hugoItem{chapter: c, weight: c.Position, date: c.page.FrontMatter["date"], label: c.Label, path: c.File}
}

// hugoArrange orders and groups a Hugo site's pages as its sections nest
// (see hugoSections).
func hugoArrange(t *Tree, chapters []*Chapter, folders map[string]*folder) {
	s := hugoSections{t: t, folders: folders, pages: map[string][]*Chapter{}, subs: map[string][]string{}, own: map[string]bool{}}
	for _, c := range chapters {
		if c.IsIndex && c.dir != "" && folders[c.dir] != nil && folders[c.dir].index == c {
			continue // its section's page
		}
		if c.IsIndex && c.dir == "" && s.home == nil {
			s.home = c
			continue
		}
		s.pages[c.dir] = append(s.pages[c.dir], c)
		s.own[c.dir] = true
	}
	for d, f := range folders {
		s.subs[parentDir(d)] = append(s.subs[parentDir(d)], d)
		if f.index == nil {
			f.title = humanTitle(path.Base(d))
		}
	}
	var root []*Chapter
	if s.home != nil {
		root = append(root, s.home)
	}
	for i, it := range s.items("") {
		// The reader's page orders the book's top level by position:
		// Hugo's order is given as ranks.
		if it.chapter != nil {
			it.chapter.Position = float64(i)
		} else {
			folders[it.dir].position = float64(i)
		}
		root = append(root, s.place(it, nil)...)
	}
	t.Chapters = root
	for _, m := range t.Modules {
		m.Position = folders[m.ID].position
		t.Chapters = append(t.Chapters, m.Chapters...)
	}
}

// hugoSections is a Hugo site's sections as hugoArrange walks them. A
// section that holds pages of its own (besides its _index.md) is a
// module; its pages and the sections inside it that hold none (a
// section that is only its _index.md page, or that only groups others)
// are its chapters, in Hugo's order, depth first; a section with pages
// inside it is a module of its own, after it. The book has two levels,
// modules and chapters: deeper nesting is flattened so.
type hugoSections struct {
	t       *Tree
	folders map[string]*folder
	home    *Chapter
	pages   map[string][]*Chapter // section -> its pages, its _index.md not among them
	subs    map[string][]string   // section -> the sections in it
	own     map[string]bool       // sections holding pages besides _index.md
}

// items are a section's pages and sub-sections in Hugo's order.
func (s *hugoSections) items(dir string) []hugoItem {
	var items []hugoItem
	for _, c := range s.pages[dir] {
		items = append(items, pageItem(c))
	}
	for _, d := range s.subs[dir] {
		it := hugoItem{dir: d, weight: noPosition, label: s.folders[d].title, path: d}
		if ix := s.folders[d].index; ix != nil {
			it = pageItem(ix)
			it.chapter, it.dir, it.path = nil, d, d
		}
		items = append(items, it)
	}
	sort.SliceStable(items, func(i, j int) bool { return hugoLess(items[i], items[j]) })
	return items
}

// place puts an item in module m (nil: the book's root) and returns the
// chapters it adds there; a section with pages of its own becomes a
// module, and adds none.
func (s *hugoSections) place(it hugoItem, m *Module) []*Chapter {
	if it.chapter != nil {
		it.chapter.ModuleID = moduleID(m)
		return []*Chapter{it.chapter}
	}
	if !s.own[it.dir] {
		return s.section(it.dir, m)
	}
	f := s.folders[it.dir]
	sub := &Module{ID: it.dir, Route: stripPathPrefixes(it.dir), Title: f.title, Position: f.position, Index: f.index}
	s.t.Modules = append(s.t.Modules, sub)
	sub.Chapters = s.section(it.dir, sub)
	return nil
}

// section is a section's chapters in module m: its _index.md page, then
// its items.
func (s *hugoSections) section(dir string, m *Module) []*Chapter {
	var out []*Chapter
	if ix := s.folders[dir].index; ix != nil {
		ix.ModuleID = moduleID(m)
		out = append(out, ix)
	}
	for _, it := range s.items(dir) {
		out = append(out, s.place(it, m)...)
	}
	return out
}

func moduleID(m *Module) string {
	if m == nil {
		return ""
	}
	return m.ID
}
