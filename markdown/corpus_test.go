package markdown

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/textbook-rag/rag/internal/sharedtest"
)

// sharedCorpus holds the shared books, each in a layout of its own.
var sharedCorpus = filepath.Join("..", "..", "shared", "corpus")

// Every shared book yields its chapters in the order of its own table of
// contents (where it has one), and no chunk quotes a dialect's raw markup
// outside code.
func TestSharedBooksOrderAndMarkup(t *testing.T) {
	sharedtest.Require(t, sharedCorpus)
	if testing.Short() {
		t.Skip("-short: skipping the shared books")
	}
	dirs, err := os.ReadDir(sharedCorpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(sharedCorpus, d.Name())
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			fsys := os.DirFS(dir)
			quiet := DefaultOptions()
			l, err := walkBook(t.Context(), fsys, quiet)
			if err != nil {
				t.Fatal(err)
			}
			lay, err := readLayout(fsys, &l, sha256.New(), quiet)
			if err != nil {
				t.Fatal(err)
			}
			tree, err := ReadTree(t.Context(), fsys, quiet)
			if err != nil {
				t.Fatal(err)
			}
			if lay.toc != nil {
				checkTocOrder(t, tree, lay.toc.entries)
			}
			_, chunks, err := Load(t.Context(), fsys, quiet)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range chunks {
				if raw, line := rawProse(c.Text); raw != "" {
					t.Errorf("%s: raw markup %q quoted: %q", c.ChapterPath, raw, line)
				}
			}
		})
	}
}

// checkTocOrder checks that the listed pages come in the table of
// contents' order within the book's root, within each module, and that
// modules come in the order of their first page.
func checkTocOrder(t *testing.T, tree *Tree, entries []tocEntry) {
	t.Helper()
	order := map[string]int{}
	var walk func([]tocEntry)
	walk = func(es []tocEntry) {
		for _, e := range es {
			if _, seen := order[e.Path]; e.Path != "" && !seen {
				order[e.Path] = len(order)
			}
			walk(e.Children)
		}
	}
	walk(entries)
	increasing := func(what string, cs []*Chapter) {
		last, lastPath := -1, ""
		for _, c := range cs {
			n, ok := order[c.Path]
			if !ok {
				continue
			}
			if n < last {
				t.Errorf("%s: %s comes after %s, against the table of contents", what, c.Path, lastPath)
			}
			last, lastPath = n, c.Path
		}
	}
	var root []*Chapter
	for _, c := range tree.Chapters {
		if c.ModuleID == "" {
			root = append(root, c)
		}
	}
	increasing("the book's root", root)
	var firsts []*Chapter
	for _, m := range tree.Modules {
		increasing("module "+m.ID, m.Chapters)
		if len(m.Chapters) > 0 {
			firsts = append(firsts, m.Chapters[0])
		}
	}
	increasing("the modules", firsts)
	if len(order) > 0 && len(tree.Chapters) == 0 {
		t.Error("no chapters")
	}
}

// fenceLine opens (or closes) fenced code.
var fenceLine = regexp.MustCompile("^\\s*(`{3,}|~{3,})")

// rawProse finds dialect markup (rawMarkup) in a chunk's prose: outside
// fenced code and code spans.
func rawProse(text string) (raw, line string) {
	fence := ""
	for _, l := range strings.Split(text, "\n") {
		if fence != "" {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if m := fenceLine.FindStringSubmatch(l); m != nil {
			fence = m[1]
			continue
		}
		parts := strings.Split(l, "`")
		var prose strings.Builder
		for i := 0; i < len(parts); i += 2 {
			prose.WriteString(parts[i] + " ")
		}
		p := prose.String() + "\n"
		for _, r := range rawMarkup {
			if strings.Contains(r, "`") {
				if strings.Contains(l, r) {
					return r, l
				}
				continue
			}
			if strings.Contains(p, r) {
				return r, l
			}
		}
		if r := rawLine(p); r != "" {
			return r, l
		}
	}
	return "", ""
}
