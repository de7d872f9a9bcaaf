package markdown

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/textbook-rag/rag/markdown/page"
	"go.yaml.in/yaml/v3"
)

// bookdownLayout reads a bookdown book: _bookdown.yml at the book's root,
// its chapters the .Rmd files rmd_files lists (a list, or one per output
// format, of which html's is taken), else every .Rmd file at the root by
// name with index.Rmd first, as bookdown merges them. Pages are served at
// their path.
type bookdownLayout struct{}

const bookdownFile = "_bookdown.yml"

func (bookdownLayout) title(root *os.Root) string {
	return yamlTitle(root, bookdownFile, []string{"book_title"})
}

func (bookdownLayout) configs() []string { return []string{bookdownFile} }

func (bookdownLayout) read(fsys fs.FS, l *listing, hash io.Writer, opts Options) (layout, bool, error) {
	b, ok, err := readConfig(fsys, l, bookdownFile, opts)
	if !ok || err != nil {
		return layout{}, false, err
	}
	hash.Write(b)
	lay := layout{name: "bookdown", route: siteRoute}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		opts.warn(bookdownFile, fmt.Errorf("not read, the order comes from folders: not valid YAML: %w", err))
		return lay, true, nil
	}
	var files *yaml.Node
	if len(doc.Content) > 0 {
		files = mapValue(doc.Content[0], "rmd_files")
	}
	if files != nil && files.Kind == yaml.MappingNode {
		files = mapValue(files, "html")
	}
	var entries []tocEntry
	switch {
	case files == nil:
		entries = bookdownDefault(l.pages)
	case files.Kind == yaml.SequenceNode:
		for _, f := range files.Content {
			if f.Kind != yaml.ScalarNode {
				opts.warn(bookdownFile, fmt.Errorf("line %d: an rmd_files entry is %s, want a file name: skipped", f.Line, yamlKind(f)))
				continue
			}
			entries = append(entries, tocEntry{Ref: f.Value, Path: tocPath("", f.Value)})
		}
	default:
		opts.warn(bookdownFile, fmt.Errorf("line %d: rmd_files is %s, want a list: the order comes from folders", files.Line, yamlKind(files)))
		return lay, true, nil
	}
	lay.toc = &toc{file: bookdownFile, entries: bookdownParts(fsys, entries, opts), only: true}
	return lay, true, nil
}

// bookdownParts groups the chapters into the book's parts: a page with a
// `# (PART) Title {-}` heading starts a module titled so, and `#
// (APPENDIX) Title {-}` starts the appendix's. A page that holds nothing
// but the part heading is the module's own page. Chapters before the
// first part stay at the book's root.
func bookdownParts(fsys fs.FS, entries []tocEntry, opts Options) []tocEntry {
	var out []tocEntry
	part := -1 // index in out of the open part
	for _, e := range entries {
		title, only := "", false
		if b, err := readFile(fsys, e.Ref, opts.MaxFileBytes); err == nil {
			title, only = partHeading(page.CleanText(b))
		}
		switch {
		case title != "" && only:
			out = append(out, tocEntry{Title: title, Ref: e.Ref, Path: e.Path})
			part = len(out) - 1
		case title != "":
			out = append(out, tocEntry{Title: title, Children: []tocEntry{e}})
			part = len(out) - 1
		case part >= 0:
			out[part].Children = append(out[part].Children, e)
		default:
			out = append(out, e)
		}
	}
	return out
}

// partHeading is the title of the part a page starts, "" for none; only
// when the page has no # heading of its own.
func partHeading(b []byte) (title string, only bool) {
	only = true
	fence := false
	for _, line := range strings.Split(string(b), "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "# ") {
			continue
		}
		if m := page.BookdownPart.FindStringSubmatch(line); m != nil {
			if title == "" {
				title = m[2]
			}
			continue
		}
		only = false
	}
	return title, only
}

// bookdownDefault is bookdown's order without rmd_files: the .Rmd files
// at the root whose name does not start with "_", index.Rmd first.
func bookdownDefault(pages []string) []tocEntry {
	var files []string
	for _, p := range pages {
		if e := pageExt(p); (e == ".Rmd" || e == ".rmd") && !strings.Contains(p, "/") && !strings.HasPrefix(p, "_") {
			files = append(files, p)
		}
	}
	sort.SliceStable(files, func(i, j int) bool {
		a, b := strings.ToLower(stem(files[i])) == "index", strings.ToLower(stem(files[j])) == "index"
		if a != b {
			return a
		}
		return files[i] < files[j]
	})
	out := make([]tocEntry, 0, len(files))
	for _, f := range files {
		out = append(out, tocEntry{Ref: f, Path: pagePath(f)})
	}
	return out
}
