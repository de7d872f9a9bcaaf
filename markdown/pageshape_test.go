package markdown

import (
	"fmt"
	"runtime"
	"testing"
	"testing/fstest"
)

// A page costs what its bytes cost, whatever its shape: thousands of
// one-line list items, a long table, a word a line, or a SUMMARY.md that
// is no table of contents and so is read as a page. Counting each line's
// tokens with tiktoken-go's regular expression made these cost 4–7 s of
// CPU and 570–800 bytes allocated per byte of the page.

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
	return map[string]fstest.MapFS{
		"list items": one("# List\n\n## Items\n\n" + repeatTo(size, func(i int) string { return fmt.Sprintf("- item %d of the list\n", i) })),
		"table":      one("# Table\n\n## Rows\n\n| a | b | c |\n|---|---|---|\n" + repeatTo(size, func(i int) string { return fmt.Sprintf("| row %d | cell | more words |\n", i) })),
		"word lines": one("# Words\n\n## Lines\n\n" + repeatTo(size, func(i int) string { return fmt.Sprintf("word%d\n", i%1000) })),
		"SUMMARY.md": summary,
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
