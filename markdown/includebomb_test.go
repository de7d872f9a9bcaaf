package markdown

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// A small mdBook whose files each include the next four times asks for
// 4^10 copies; what includes add to the whole book stays within its
// budget (1 MiB and twice its files), with one warning for the book
// (R5-include-bomb). The cost this bounds is measured by
// BenchmarkIncludeBomb.
func TestIncludeBombBoundedPerBook(t *testing.T) {
	book := includeBomb()
	o := DefaultOptions()
	w := &warnLog{}
	o.Warn = func(path string, err error) { *w = append(*w, path+": "+err.Error()) }
	tree, err := ReadTree(t.Context(), book, o)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, c := range tree.Chapters {
		total += len(c.Body)
	}
	if limit := baseIncludeBytes + 3*bookBytes(book); total > limit {
		t.Errorf("the pages hold %d bytes after includes, want at most %d", total, limit)
	}
	if total < 50*bookBytes(book) {
		t.Errorf("the pages hold %d bytes: includes within the budget were left out", total)
	}
	if n := strings.Count(w.String(), "left out"); n != 1 {
		t.Errorf("%d warnings, want one for the book:\n%.2000s", n, w)
	}
}

// includeBomb is an mdBook of 11 small pages, each including the next
// four times.
func includeBomb() fstest.MapFS {
	book := fstest.MapFS{}
	var summary strings.Builder
	for i := range 11 {
		fmt.Fprintf(&summary, "- [Part %d](p%d.md)\n", i, i)
		body := fmt.Sprintf("# Part %d\n\nPart %d says that a gear has teeth.\n\n", i, i)
		if i < 10 {
			body += strings.Repeat(fmt.Sprintf("{{#include p%d.md}}\n\n", i+1), 4)
		}
		book[fmt.Sprintf("p%d.md", i)] = &fstest.MapFile{Data: []byte(body)}
	}
	book["SUMMARY.md"] = &fstest.MapFile{Data: []byte(summary.String())}
	return book
}

func bookBytes(book fstest.MapFS) int {
	n := 0
	for _, f := range book {
		n += len(f.Data)
	}
	return n
}

func BenchmarkIncludeBomb(b *testing.B) {
	book := includeBomb()
	o := DefaultOptions()
	o.Warn = func(string, error) {}
	for b.Loop() {
		if _, _, err := Load(b.Context(), book, o); err != nil {
			b.Fatal(err)
		}
	}
}
