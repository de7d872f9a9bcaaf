package markdown

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/textbook-rag/rag"
)

// A page costs what its bytes cost, whatever its shape: thousands of
// one-line list items, a long table, a word a line, a paragraph of lines
// with brackets that are no links, or a SUMMARY.md that is no table of
// contents and so is read as a page. Counting each line's tokens with
// tiktoken-go's regular expression made the first four cost 4–7 s of CPU
// and 570–800 bytes allocated per byte of the page; goldmark's inline
// parse of a long paragraph with brackets costs the square of its lines.

// shapeBytes is the size of the pages the page-shape tests read.
const shapeBytes = 2 << 20

// shapeBooks are books of one page of size bytes each, in one shape.
func shapeBooks(size int) map[string]fstest.MapFS {
	intro := &fstest.MapFile{Data: []byte("# Intro\n\nThe book begins.\n")}
	one := func(src string) fstest.MapFS {
		return fstest.MapFS{"intro.md": intro, "big.md": {Data: []byte(src)}}
	}
	summary := fstest.MapFS{"SUMMARY.md": {Data: []byte("# Summary\n\n" + repeatTo(size, func(i int) string {
		if i%2 == 1 {
			return fmt.Sprintf("- [Page](p%d.md)\n", i%100)
		}
		return "- a note, not a link\n"
	}))}}
	addPages(summary, "", 100)
	bracketed := func(i int) string { return fmt.Sprintf("see [note %d] and [Page](p%d.md)\n", i, i%100) }
	bracketSummary := fstest.MapFS{"SUMMARY.md": {Data: []byte("# Summary\n\n" + repeatTo(size, bracketed))}}
	addPages(bracketSummary, "", 100)
	return map[string]fstest.MapFS{
		"bracketed lines":             one("# Notes\n\n## Lines\n\n" + repeatTo(size, bracketed)),
		"SUMMARY.md, bracketed lines": bracketSummary,
		"list items":                  one("# List\n\n## Items\n\n" + repeatTo(size, func(i int) string { return fmt.Sprintf("- item %d of the list\n", i) })),
		"table":                       one("# Table\n\n## Rows\n\n| a | b | c |\n|---|---|---|\n" + repeatTo(size, func(i int) string { return fmt.Sprintf("| row %d | cell | more words |\n", i) })),
		"word lines":                  one("# Words\n\n## Lines\n\n" + repeatTo(size, func(i int) string { return fmt.Sprintf("word%d\n", i%1000) })),
		"SUMMARY.md":                  summary,
	}
}

// Each shape is read and chunked within 3 s of CPU (0.5–0.8 s measured on
// a loaded machine) and 250 bytes allocated per byte of the book (about
// 100 measured).
func TestPageShapesCostTheirBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 8 MiB of pages")
	}
	for name, fsys := range shapeBooks(shapeBytes) {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			cpu := processCPU()
			chunks, _ := loadWarned(t, fsys)
			took := processCPU() - cpu
			runtime.ReadMemStats(&after)
			if len(chunks) < 100 {
				t.Fatalf("%d chunks, want the page's hundreds", len(chunks))
			}
			size := 0
			for _, f := range fsys {
				size += len(f.Data)
			}
			if perByte := (after.TotalAlloc - before.TotalAlloc) / uint64(size); perByte > 250 {
				t.Errorf("allocated %d bytes per byte of the book", perByte)
			}
			if took > 3 {
				t.Errorf("took %.1f s of CPU", took)
			}
		})
	}
}

func BenchmarkPageShapes(b *testing.B) {
	for name, fsys := range shapeBooks(shapeBytes) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				loadWarned(b, fsys)
			}
			b.ReportMetric((processCPU()-cpu)/float64(b.N), "cpu-s/op")
		})
	}
}

// A SUMMARY.md with a paragraph of many lines holding brackets that are
// no links is no table of contents: it is read as a page, with a warning
// that names the paragraph, and its inlines are never parsed as a table
// of contents' (which cost the square of the paragraph's lines).
func TestSummaryLongParagraphIsAPage(t *testing.T) {
	var lines strings.Builder
	for i := range 100 {
		fmt.Fprintf(&lines, "see [note %d] and [Page](p%d.md)\n", i, i%3)
	}
	fsys := fstest.MapFS{"SUMMARY.md": {Data: []byte("# Summary\n\n- [Page](p0.md)\n\n" + lines.String())}}
	addPages(fsys, "", 3)
	chunks, warned := loadWarned(t, fsys)
	if want := "SUMMARY.md: read as a page, not a table of contents: line 5: a paragraph of text with brackets, not a table of contents (100 lines)"; !slices.Contains(warned, want) {
		t.Errorf("warnings %q, want %q", warned, want)
	}
	if !slices.ContainsFunc(chunks, func(c rag.Chunk) bool { return c.ChapterPath == "SUMMARY" }) {
		t.Error("SUMMARY.md is not among the pages")
	}
}
