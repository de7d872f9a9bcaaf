package markdown

import (
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/textbook-rag/rag/markdown/page"
)

// sphinxLayout reads a Sphinx site written in MyST Markdown: conf.py (at
// the root, or in source/ or docs/) names the project and its root
// document (root_doc, index by default), whose {toctree} directives list
// the pages, each page's own toctrees the pages under it. A toctree with
// a :caption: is a module titled so. Pages are served at their path. The
// pages of a Sphinx site written in reStructuredText are not read (see
// ErrRestructuredText).
type sphinxLayout struct{}

var sphinxConfigs = []string{"conf.py", "source/conf.py", "docs/conf.py"}

var (
	sphinxProject = regexp.MustCompile(`(?m)^project\s*=\s*(?:u?["']([^"'\n]*)["'])`)
	sphinxRootDoc = regexp.MustCompile(`(?m)^(?:root_doc|master_doc)\s*=\s*["']([^"'\n]+)["']`)
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
	lay := layout{name: "Sphinx", base: base, route: siteRoute, vars: page.Vars{Substitutions: mystSubstitutions(b)}}
	if m := sphinxProject.FindSubmatch(b); m != nil {
		lay.title = courseOf(strings.TrimSpace(string(m[1])))
	}
	keepUnder(l, base, "", file, "Sphinx site", opts)
	root := "index"
	if m := sphinxRootDoc.FindSubmatch(b); m != nil {
		root = string(m[1])
	}
	rootPath := path.Join(base, root)
	r := sphinxReader{fsys: fsys, l: l, base: base, opts: opts, seen: map[string]bool{}, files: map[string]string{}}
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
	return lay, true, nil
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
}

// file is the page whose path without extension is p, "" for none.
func (r sphinxReader) file(p string) string { return r.files[p] }

// toctrees are the entries of the page's toctrees, each entry with the
// entries of its own page's toctrees under it.
func (r sphinxReader) toctrees(p string, depth int) []tocEntry {
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
	var tree *tocEntry // the open toctree
	fence := ""
	lines := toctreeSource(strings.Split(string(page.CleanText(b)), "\n"))
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if tree == nil {
			if m := toctreeOpen.FindStringSubmatch(line); m != nil {
				tree, fence = &tocEntry{Children: make([]tocEntry, 0, toctreeLines(lines[i+1:], m[1]))}, m[1]
			}
			continue
		}
		switch {
		case t == fence:
			switch {
			case tree.Title != "":
				out = append(out, *tree)
			case out == nil:
				// Most pages hold one toctree: its entries are the page's,
				// not copied (a long one is megabytes of entries).
				out = tree.Children
			default:
				out = append(out, tree.Children...)
			}
			tree = nil
		case strings.HasPrefix(t, ":caption:"):
			tree.Title = strings.TrimSpace(strings.TrimPrefix(t, ":caption:"))
		case t == "" || strings.HasPrefix(t, ":") || t == "self" || strings.ContainsAny(t, "*?"):
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
			if e.Path == "" && !leavesBook(e.Ref) {
				continue // a web address
			}
			e.Children = r.toctrees(e.Path, depth+1)
			tree.Children = append(tree.Children, e)
		}
	}
	return out
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
			if m := sphinxProject.FindSubmatch(raw); m != nil {
				return courseOf(strings.TrimSpace(string(m[1])))
			}
		}
	}
	return ""
}

// toctreeSource is a page's lines as its toctrees are read from them: a
// code block's lines, and a myst-example's, are blanked (a toctree shown
// as an example of the syntax lists no page), and a toctree's options
// written as a YAML block (`---` … `---` on its first lines) are written
// as `:key: value` lines.
func toctreeSource(lines []string) []string {
	out := make([]string, len(lines))
	var open []string // the directives' fences open, innermost last
	code := ""        // an open code block's fence
	yamlOptions := 0  // 1: a toctree just opened; 2: in its YAML block
	for i, line := range lines {
		t := strings.TrimSpace(line)
		switch {
		case code != "":
			if closesRun(t, code) {
				code = ""
			}
			continue
		case yamlOptions == 1 && t == "---":
			yamlOptions = 2
			continue
		case yamlOptions == 2:
			if t == "---" {
				yamlOptions = 0
			} else if t != "" {
				out[i] = ":" + t
				if k, v, ok := strings.Cut(t, ":"); ok {
					out[i] = ":" + strings.TrimSpace(k) + ": " + strings.TrimSpace(v)
				}
			}
			continue
		case len(open) > 0 && closesRun(t, open[len(open)-1]):
			open = open[:len(open)-1]
		case codeFence.MatchString(line):
			m := codeFence.FindStringSubmatch(line)
			if strings.HasPrefix(m[2], "{") && !strings.HasPrefix(m[2], "{code") && m[2] != "{myst-example}" {
				open = append(open, m[1])
				break
			}
			code = m[1]
			continue
		}
		yamlOptions = 0
		if toctreeOpen.MatchString(line) {
			yamlOptions = 1
		}
		out[i] = line
	}
	return out
}

// codeFence opens a fenced block: its fence and its info string.
var codeFence = regexp.MustCompile("^\\s*(`{3,}|~{3,})\\s*(\\S*)")

// closesRun reports a trimmed line that closes a fence: the fence's
// character, at least as many, and nothing else.
func closesRun(t, fence string) bool {
	return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
}

// mystSubstitutions are the myst_substitutions of a conf.py, read as
// text: the string values of its dict literal.
func mystSubstitutions(conf []byte) map[string]string {
	loc := mystSubstitutionsStart.FindIndex(conf)
	if loc == nil {
		return nil
	}
	body := conf[loc[1]:]
	if end := dictEnd(body); end >= 0 {
		body = body[:end]
	}
	subs := map[string]string{}
	for _, m := range substitutionPair.FindAllSubmatch(body, -1) {
		subs[string(m[2])+string(m[4])] = string(m[5]) + string(m[6])
	}
	return subs
}

var (
	mystSubstitutionsStart = regexp.MustCompile(`(?m)^myst_substitutions\s*=\s*(?:dict\(|\{)`)
	// substitutionPair is `"key": "value"` (or key="value" in dict()).
	substitutionPair = regexp.MustCompile(`(?:(["'])([\w.-]+)["']\s*:|()([\w.-]+)\s*=)\s*(?:"([^"\n]*)"|'([^'\n]*)')`)
)

// dictEnd is where the dict literal that body opens ends: its closing
// brace or parenthesis, outside strings; -1 when it does not close.
func dictEnd(body []byte) int {
	depth, quote := 1, byte(0)
	for i, c := range body {
		switch {
		case quote != 0:
			if c == quote && (i == 0 || body[i-1] != '\\') {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '{' || c == '(' || c == '[':
			depth++
		case c == '}' || c == ')' || c == ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}
