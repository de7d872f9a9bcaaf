package markdown

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/markdown/page"
)

// nestedPages are pages that nest one construct n levels deep.
func nestedPages(n int) map[string]string {
	return map[string]string{
		"blockquotes": strings.Repeat("> ", n) + "deepest words\n",
		"lists":       strings.Repeat("- ", n) + "deepest words\n",
		"mixed":       strings.Repeat("> 1. ", n/2) + "deepest words\n",
		"links":       strings.Repeat("[a](", n) + " deepest words\n",
		"brackets":    strings.Repeat("[", n) + " deepest words\n",
		"html":        strings.Repeat("<div>", n) + "deepest words" + strings.Repeat("</div>", n) + "\n",
		"jsx":         "import X from './x';\n\n" + strings.Repeat("<X>\n", n) + "deepest words\n" + strings.Repeat("</X>\n", n),
		"emphasis":    strings.Repeat("*a ", n) + "deepest words\n",
	}
}

// loadWarned reads a book and chunks it, as a start does, with the
// warnings it gave.
func loadWarned(t testing.TB, fsys fstest.MapFS) ([]rag.Chunk, []string) {
	t.Helper()
	var warned []string
	opts := DefaultOptions()
	opts.Warn = func(p string, err error) { warned = append(warned, p+": "+err.Error()) }
	snap, err := ReadFS(context.Background(), fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	_, chunks, err := Load(context.Background(), snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	return chunks, warned
}

// A page nested far deeper than page.MaxNesting is read, flattened, with a
// warning, and its text stays in the index.
func TestLoadDeepNesting(t *testing.T) {
	for name, src := range nestedPages(20000) {
		t.Run(name, func(t *testing.T) {
			ext := ".md"
			if name == "jsx" {
				ext = ".mdx"
			}
			fsys := fstest.MapFS{"intro.md": {Data: []byte("# Intro\n\nThe book begins.\n")}, "deep" + ext: {Data: []byte("# Deep\n\n" + src)}}
			chunks, warned := loadWarned(t, fsys)
			var text strings.Builder
			for _, c := range chunks {
				text.WriteString(c.Text)
			}
			if !strings.Contains(text.String(), "deepest words") {
				t.Errorf("the deepest text is not in the index")
			}
			if cuts := name != "html" && name != "jsx" && name != "emphasis"; cuts && !strings.Contains(strings.Join(warned, "\n"), fmt.Sprintf("nesting deeper than %d levels", page.MaxNesting)) {
				t.Errorf("no warning of the cut: %q", warned)
			}
		})
	}
}

// Reading a page is linear in its nesting: ns/op at 100,000 levels is
// about ten times that at 10,000 (before the cut, about a hundred times).
func BenchmarkReadNested(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		for name, src := range nestedPages(n) {
			ext := ".md"
			if name == "jsx" {
				ext = ".mdx"
			}
			fsys := fstest.MapFS{"deep" + ext: {Data: []byte("# Deep\n\n" + src)}}
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				opts := DefaultOptions()
				opts.Warn = func(string, error) {}
				for b.Loop() {
					snap, err := ReadFS(context.Background(), fsys, opts)
					if err != nil {
						b.Fatal(err)
					}
					if _, _, err := Load(context.Background(), snap, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// The cut is idempotent, bounds every line's container depth, never
// panics, and the reader takes whatever it leaves.
func FuzzLimitNesting(f *testing.F) {
	for _, p := range nestedPages(page.MaxNesting + 3) {
		f.Add([]byte(p))
	}
	f.Add([]byte("```\n> > >\n```\n[a](b)\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		out, _ := page.LimitNesting(src)
		if again, line := page.LimitNesting(out); line != 0 || !bytes.Equal(again, out) {
			t.Fatalf("a second cut changed line %d of %q", line, out)
		}
		fsys := fstest.MapFS{"a.md": {Data: append([]byte("# A\n\n"), src...)}}
		opts := DefaultOptions()
		opts.Warn = func(string, error) {}
		if _, _, err := Load(context.Background(), fsys, opts); err != nil && err != ErrNoChapters {
			t.Logf("load: %v", err)
		}
	})
}
