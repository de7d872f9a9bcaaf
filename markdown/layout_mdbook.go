package markdown

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

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
func (mdBookLayout) title(root *os.Root) string { return bookTomlTitle(root) }

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
		if sp == summaryFile {
			entries = withIntroduction(entries, l.pages)
		}
		hash.Write(b)
		keepUnder(l, base, sp, sp, "mdBook", opts)
		return layout{name: "mdBook", toc: &toc{file: sp, entries: entries, only: true}, base: base, mdBook: true}, true, nil
	}
	return layout{}, false, nil
}

// withIntroduction puts a GitBook's README.md first when its SUMMARY.md
// does not list it: GitBook makes the README the book's introduction,
// its first page, listed or not.
func withIntroduction(entries []tocEntry, pages []string) []tocEntry {
	i := slices.IndexFunc(pages, func(p string) bool { return strings.EqualFold(p, "README.md") })
	if i < 0 || listsPath(entries, pagePath(pages[i]), 0) {
		return entries
	}
	return append([]tocEntry{{Ref: pages[i], Path: pagePath(pages[i])}}, entries...)
}

// listsPath reports a table of contents that lists the page p.
func listsPath(entries []tocEntry, p string, depth int) bool {
	for _, e := range entries {
		if e.Path == p || depth < maxTocDepth && listsPath(e.Children, p, depth+1) {
			return true
		}
	}
	return false
}
