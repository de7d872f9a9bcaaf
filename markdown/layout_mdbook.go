package markdown

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/textbook-rag/rag/markdown/page"
)

// mdBookLayout reads a book whose SUMMARY.md lists its pages: an mdBook
// (SUMMARY.md in src/ beside book.toml) or a GitBook (SUMMARY.md at the
// root). A page named SUMMARY.md that does not read as a table of
// contents stays a page. The SUMMARY.md taken leaves the pages, and so do
// pages outside an mdBook's src folder (mdBook does not show them), with
// a warning.
type mdBookLayout struct{}

// summaryPaths are where an mdBook's SUMMARY.md may be.
var summaryPaths = []string{summaryFile, "src/" + summaryFile}

// title: an mdBook names itself in book.toml (ReadBookTomlTitle).
func (mdBookLayout) title(*os.Root) string { return "" }

func (mdBookLayout) configs() []string { return nil } // SUMMARY.md is a page until it is read

func (mdBookLayout) read(fsys fs.FS, l *listing, hash io.Writer, opts Options) (layout, bool, error) {
	known := knownPages(l)
	for _, sp := range summaryPaths {
		if !slices.Contains(l.pages, sp) {
			continue
		}
		b, err := readFile(fsys, sp, opts.MaxFileBytes)
		if errors.Is(err, errSkipped) {
			continue // warned about when it is read as a page
		}
		if err != nil {
			return layout{}, false, err
		}
		base := parentDir(sp)
		entries, skipped, ok := parseSummary(page.CleanText(b), base)
		if !listsAPage(entries, known) {
			continue
		}
		if !ok {
			// Links to pages among as much else: a page, but say so.
			opts.warn(sp, fmt.Errorf("read as a page, not a table of contents: %d of its blocks are not links (%v)", len(skipped), skipped[0]))
			continue
		}
		for _, s := range skipped {
			opts.warn(sp, s)
		}
		hash.Write(b)
		keepUnder(l, base, sp, sp, "mdBook", opts)
		return layout{name: "mdBook", toc: &toc{file: sp, entries: entries, only: true}, base: base, mdBook: true}, true, nil
	}
	return layout{}, false, nil
}
