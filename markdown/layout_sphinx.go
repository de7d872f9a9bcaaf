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

	"github.com/textbook-rag/rag/markdown/page"
	"github.com/yuin/goldmark/ast"
	"go.yaml.in/yaml/v3"
)

// sphinxLayout reads a Sphinx site written in MyST Markdown: conf.py (at
// the root, or in source/ or docs/) names the project and its root
// document (root_doc, index by default), whose {toctree} directives list
// the pages, each page's own toctrees the pages under it (glob entries
// expanded, see glob). A toctree with a :caption: is a module titled so.
// Pages are served at their path. The pages of a Sphinx site written in
// reStructuredText are not read (see ErrRestructuredText).
type sphinxLayout struct{}

var sphinxConfigs = []string{"conf.py", "source/conf.py", "docs/conf.py"}

var (
	// toctreeOpen opens a toctree directive, in a backtick or colon fence.
	toctreeOpen = regexp.MustCompile("^\\s*(`{3,}|:{3,})\\s*\\{toctree\\}")
	// toctreeEntry is an entry with its own title: "Title <path>".
	toctreeEntry = regexp.MustCompile(`^(.*?)\s*<([^<>]+)>$`)
)

func (sphinxLayout) configs() []string { return sphinxConfigs }

func (sphinxLayout) read(fsys fs.FS, l *listing, hash io.Writer, opts Options) (layout, bool, error) {
	file := firstConfig(l, sphinxConfigs)
	if file == "" {
		return layout{}, false, nil
	}
	b, ok, err := readConfig(fsys, l, file, opts)
	if !ok || err != nil {
		return layout{}, false, err
	}
	hash.Write(b)
	base := parentDir(file)
	conf := readSphinxConf(b)
	lay := layout{name: "Sphinx", base: base, route: siteRoute, vars: sphinxVars(conf)}
	project := courseOf(strings.TrimSpace(conf.str("project")))
	lay.title = project
	keepUnder(l, base, "", file, "Sphinx site", opts)
	root := "index"
	for _, k := range []string{"root_doc", "master_doc"} {
		if v := conf.str(k); v != "" {
			root = v
			break
		}
	}
	rootPath := path.Join(base, root)
	r := &sphinxReader{fsys: fsys, l: l, base: base, opts: opts, seen: map[string]bool{}, files: map[string]string{}}
	for _, f := range l.pages {
		if p := pagePath(f); r.files[p] == "" {
			r.files[p] = f
		}
	}
	if r.file(rootPath) == "" {
		// A root document in reStructuredText, or none: folder order.
		return lay, true, nil
	}
	entries := append([]tocEntry{{Ref: r.file(rootPath), Path: rootPath}}, r.toctrees(rootPath, 0)...)
	lay.toc = &toc{file: file, entries: entries, only: true}
	lay.chapter = func(c *Chapter) { sphinxTitle(c, rootPath, project) }
	return lay, true, nil
}

// sphinxVars are the values conf.py gives the pages' substitutions:
// myst_substitutions, and conf.py's strings as Jinja sees them
// ({{ env.config.project }}).
func sphinxVars(conf sphinxConf) page.Vars {
	subs := map[string]string{}
	for k, v := range conf.strs {
		subs["env.config."+k] = v
	}
	for k, v := range conf.dicts["myst_substitutions"] {
		subs[k] = v
	}
	_, jinja := conf.dicts["myst_substitutions"]
	for _, e := range conf.lists["myst_enable_extensions"] {
		jinja = jinja || e == "substitution"
	}
	return page.Vars{Substitutions: subs, Jinja: jinja}
}

// sphinxTitle titles a page as Sphinx does, by its first heading at any
// level, when it has no title of its own (no front-matter title, no #
// heading); the root document with no heading is titled by the project.
func sphinxTitle(c *Chapter, rootPath, project string) {
	if c.page.Title() != "" {
		return
	}
	t := firstHeading(c.Body)
	if t == "" && c.Path == rootPath {
		t = project
	}
	if t == "" {
		return
	}
	if c.Label == c.Title {
		c.Label = t
	}
	c.Title = t
}

// firstHeading is the text of a page body's first heading, at any level.
func firstHeading(body []byte) string {
	doc := page.Parse(body)
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			return strings.TrimSpace(page.PlainText(h, body))
		}
	}
	return ""
}

// sphinxReader follows the toctrees from page to page.
type sphinxReader struct {
	fsys fs.FS
	l    *listing
	base string
	opts Options
	seen map[string]bool
	// files maps a path without extension to the first page that has it:
	// a toctree's entries are looked up in it, not in the whole listing.
	files map[string]string
	// docs are the keys of files, sorted, for glob entries (made at the
	// first); globWork counts the names glob entries have been matched
	// against, up to maxGlobWork.
	docs     []string
	globWork int
}

// maxGlobWork bounds the matching of a site's glob entries: a real site
// matches a few patterns against a few hundred pages.
const maxGlobWork = 1 << 20

// openToctree is a toctree being read.
type openToctree struct {
	entry tocEntry
	fence string
	glob  bool
	// listed are the pages it lists so far, when it has glob entries: a
	// glob does not list them again, as Sphinx does.
	listed map[string]bool
}

// file is the page whose path without extension is p, "" for none.
func (r *sphinxReader) file(p string) string { return r.files[p] }

// toctrees are the entries of the page's toctrees, each entry with the
// entries of its own page's toctrees under it. An entry that names no
// page is warned about here, naming the page that lists it.
func (r *sphinxReader) toctrees(p string, depth int) []tocEntry {
	f := r.file(p)
	if f == "" || r.seen[p] || depth > maxTocDepth {
		return nil
	}
	r.seen[p] = true
	b, err := readFile(r.fsys, f, r.opts.MaxFileBytes)
	if err != nil {
		return nil // warned about when it is read as a page
	}
	var out []tocEntry
	var tree *openToctree
	lines := toctreeSource(strings.Split(string(page.CleanText(b)), "\n"))
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if tree == nil {
			if m := toctreeOpen.FindStringSubmatch(line); m != nil {
				tree = &openToctree{entry: tocEntry{Children: make([]tocEntry, 0, toctreeLines(lines[i+1:], m[1]))}, fence: m[1]}
			}
			continue
		}
		switch {
		case t == tree.fence:
			switch {
			case tree.entry.Title != "":
				out = append(out, tree.entry)
			case out == nil:
				// Most pages hold one toctree: its entries are the page's,
				// not copied (a long one is megabytes of entries).
				out = tree.entry.Children
			default:
				out = append(out, tree.entry.Children...)
			}
			tree = nil
		case strings.HasPrefix(t, ":caption:"):
			tree.entry.Title = unquoteOption(strings.TrimPrefix(t, ":caption:"))
		case strings.HasPrefix(t, ":glob:"):
			switch strings.ToLower(unquoteOption(strings.TrimPrefix(t, ":glob:"))) {
			case "", "true", "yes", "on":
				tree.glob, tree.listed = true, map[string]bool{}
			}
		case t == "" || strings.HasPrefix(t, ":") || t == "self":
		case strings.ContainsAny(t, "*?["):
			if tree.glob {
				for _, doc := range r.glob(f, p, t, tree.listed) {
					tree.entry.Children = append(tree.entry.Children, tocEntry{Ref: r.files[doc], Path: doc, Children: r.toctrees(doc, depth+1)})
				}
			}
		default:
			e := tocEntry{Ref: t}
			// Only a line ending in ">" can be "Title <path>": the others
			// cost no pattern match.
			if strings.HasSuffix(t, ">") {
				if m := toctreeEntry.FindStringSubmatch(t); m != nil {
					e.Title, e.Ref = m[1], m[2]
				}
			}
			if strings.HasPrefix(e.Ref, "/") {
				e.Path = tocPath(r.base, strings.TrimPrefix(e.Ref, "/"))
			} else {
				e.Path = tocPath(parentDir(p), e.Ref)
			}
			switch {
			case e.Path == "" && leavesBook(e.Ref):
				r.opts.warn(f, fmt.Errorf("lists %q, which leads out of the book: left out", e.Ref))
				continue
			case e.Path == "":
				continue // a web address
			case r.file(e.Path) == "":
				r.opts.warn(f, fmt.Errorf("lists %q, which is not a page of the book", e.Ref))
				continue
			}
			if tree.listed != nil {
				tree.listed[e.Path] = true
			}
			e.Children = r.toctrees(e.Path, depth+1)
			tree.entry.Children = append(tree.entry.Children, e)
		}
	}
	return out
}

// glob lists the pages a toctree's glob entry matches, as Sphinx does:
// relative to the listing page p (from the site's root when it starts
// with "/"), sorted by path, leaving out p and the pages the toctree
// already lists (which it then lists). "*" and "?" match within a
// folder, "**" across folders, [...] a set. f is p's file, for warnings.
func (r *sphinxReader) glob(f, p, pattern string, listed map[string]bool) []string {
	if r.globWork > maxGlobWork {
		return nil // warned about once
	}
	full := path.Join(parentDir(p), pattern)
	if strings.HasPrefix(pattern, "/") {
		full = path.Join(r.base, strings.TrimPrefix(pattern, "/"))
	}
	re, err := globPattern(full)
	if err != nil {
		r.opts.warn(f, fmt.Errorf("toctree glob %q not read: %w", pattern, err))
		return nil
	}
	if r.docs == nil {
		r.docs = make([]string, 0, len(r.files))
		for d := range r.files {
			r.docs = append(r.docs, d)
		}
		sort.Strings(r.docs)
	}
	// Only the names that start with the pattern's literal prefix can
	// match: they are one run of the sorted names.
	prefix := full[:strings.IndexAny(full, "*?[")]
	var out []string
	for i := sort.SearchStrings(r.docs, prefix); i < len(r.docs) && strings.HasPrefix(r.docs[i], prefix); i++ {
		if r.globWork++; r.globWork > maxGlobWork {
			r.opts.warn(f, fmt.Errorf("toctree glob %q not expanded: the site's glob entries match more than %d names", pattern, maxGlobWork))
			return out
		}
		d := r.docs[i]
		if d != p && !listed[d] && re.MatchString(d) {
			listed[d] = true
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		r.opts.warn(f, fmt.Errorf("toctree glob %q matches no page", pattern))
	}
	return out
}

// globPattern compiles a Sphinx glob over page paths.
func globPattern(p string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				b.WriteString(".*")
				i++
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		case '[':
			end := strings.IndexByte(p[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			set := p[i+1 : i+1+end]
			if strings.HasPrefix(set, "!") {
				set = "^" + set[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(set, `\`, `\\`) + "]")
			i += end + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// unquoteOption is a directive option's value without the quotes YAML
// may write it in (`caption: "Contents:"`).
func unquoteOption(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		var s string
		if yaml.Unmarshal([]byte(v), &s) == nil {
			return s
		}
	}
	return v
}

// toctreeLines counts a toctree's lines, up to its closing fence: at
// most one entry each, so that its entries are gathered in one slice of
// that size rather than grown (a long toctree is a million entries, and
// growing a slice of them copies it several times over).
func toctreeLines(lines []string, fence string) int {
	for n, line := range lines {
		if strings.TrimSpace(line) == fence {
			return n
		}
	}
	return len(lines)
}

func (sphinxLayout) title(root *os.Root) string {
	for _, f := range sphinxConfigs {
		if raw, _, err := readInRoot(root, f, maxConfigBytes); err == nil {
			if p := readSphinxConf(page.CleanText(raw)).str("project"); p != "" {
				return courseOf(strings.TrimSpace(p))
			}
		}
	}
	return ""
}

// toctreeSource is a page's lines as its toctrees are read from them: a
// code block's lines, and a myst-example's, are blanked (a toctree shown
// as an example of the syntax lists no page), and a toctree's options
// written as a YAML block (`---` … `---` on its first lines) are written
// as `:key: value` lines. An eval-rst block's `.. toctree::` directives,
// which the site follows as well, are written as MyST toctrees; its
// other lines are blanked.
func toctreeSource(lines []string) []string {
	out := make([]string, 0, len(lines))
	var open []string // the directives' fences open, innermost last
	code := ""        // an open code block's fence
	yamlOptions := 0  // 1: a toctree just opened; 2: in its YAML block
	// rst is an open eval-rst block's fence, rstToc the indentation of a
	// toctree directive open in it (-1 for none).
	rst, rstToc := "", -1
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if rst != "" {
			ind := len(line) - len(strings.TrimLeft(line, " \t"))
			if rstToc >= 0 && (t == "" || ind > rstToc && !closesRun(t, rst)) {
				out = append(out, t) // an option or an entry
				continue
			}
			if rstToc >= 0 {
				out = append(out, "```")
				rstToc = -1
			}
			switch {
			case closesRun(t, rst):
				rst = ""
			case rstToctree.MatchString(line):
				out = append(out, "```{toctree}")
				rstToc = ind
				continue
			}
			out = append(out, "")
			continue
		}
		switch {
		case code != "":
			if closesRun(t, code) {
				code = ""
			}
			out = append(out, "")
			continue
		case yamlOptions == 1 && t == "---":
			yamlOptions = 2
			out = append(out, "")
			continue
		case yamlOptions == 2:
			switch {
			case t == "---":
				yamlOptions = 0
				out = append(out, "")
			case t == "":
				out = append(out, "")
			default:
				opt := ":" + t
				if k, v, ok := strings.Cut(t, ":"); ok {
					opt = ":" + strings.TrimSpace(k) + ": " + strings.TrimSpace(v)
				}
				out = append(out, opt)
			}
			continue
		case len(open) > 0 && closesRun(t, open[len(open)-1]):
			open = open[:len(open)-1]
		case evalRSTOpen.MatchString(line):
			rst = evalRSTOpen.FindStringSubmatch(line)[1]
			out = append(out, "")
			continue
		case codeFence.MatchString(line):
			m := codeFence.FindStringSubmatch(line)
			if strings.HasPrefix(m[2], "{") && !strings.HasPrefix(m[2], "{code") && m[2] != "{myst-example}" {
				open = append(open, m[1])
				break
			}
			code = m[1]
			out = append(out, "")
			continue
		}
		yamlOptions = 0
		if toctreeOpen.MatchString(line) {
			yamlOptions = 1
		}
		out = append(out, line)
	}
	if rstToc >= 0 {
		out = append(out, "```")
	}
	return out
}

var (
	// evalRSTOpen opens an eval-rst block, in any fence; rstToctree is a
	// toctree directive in it.
	evalRSTOpen = regexp.MustCompile("^\\s*(`{3,}|~{3,}|:{3,})\\s*\\{eval-rst\\}")
	rstToctree  = regexp.MustCompile(`^\s*\.\.\s+toctree::\s*$`)
)

// codeFence opens a fenced block: its fence and its info string.
var codeFence = regexp.MustCompile("^\\s*(`{3,}|~{3,})\\s*(\\S*)")

// closesRun reports a trimmed line that closes a fence: the fence's
// character, at least as many, and nothing else.
func closesRun(t, fence string) bool {
	return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
}
