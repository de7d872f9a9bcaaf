package markdown

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/textbook-rag/rag/markdown/page"
)

// mdBookLayout reads a book whose SUMMARY.md lists its pages: an mdBook
// (SUMMARY.md in src/ beside book.toml) or a GitBook (SUMMARY.md at the
// root). A page named SUMMARY.md that does not read as a table of
// contents stays a page. The SUMMARY.md taken leaves the pages, and so do
// pages outside an mdBook's src folder (mdBook does not show them), with
// a warning. A SUMMARY.md of links to folders and to no page is a
// literate-nav nav (see leaveOutFolderNavs), left out of the pages.
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
		if !ok && len(skipped) == 1 && errors.Is(skipped[0], errLongParagraph) {
			opts.warn(sp, fmt.Errorf("read as a page, not a table of contents: %v", skipped[0]))
			continue
		}
		if !listsAPage(entries, known) {
			if ok && namesAFolder(entries, pageFolders(l.pages)) {
				leaveOutNav(l, sp, opts)
			}
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

// leaveOutFolderNavs takes out of the pages each SUMMARY.md that reads as
// a list of links naming folders of the book and none of its pages: the
// nav of MkDocs' literate-nav plugin ("* [Guide](guide/)") in a book read
// without it (no mkdocs.yml, or one without the plugin). Served, such a
// file is a page of link titles, which answers nothing; the folders' pages
// are read anyway. The root's and src/'s SUMMARY.md are left to
// mdBookLayout, which reads them already.
func leaveOutFolderNavs(fsys fs.FS, l *listing, opts Options) {
	var navs []string
	for _, p := range l.pages {
		if path.Base(p) == summaryFile && !slices.Contains(summaryPaths, p) {
			navs = append(navs, p)
		}
	}
	if len(navs) == 0 {
		return
	}
	known, folders := knownPages(l), pageFolders(l.pages)
	for _, p := range navs {
		b, err := readFile(fsys, p, opts.MaxFileBytes)
		if err != nil {
			continue // warned about when it is read as a page
		}
		entries, _, ok := parseSummary(page.CleanText(b), parentDir(p))
		if ok && !listsAPage(entries, known) && namesAFolder(entries, folders) {
			leaveOutNav(l, p, opts)
		}
	}
}

// leaveOutNav takes a nav of folders out of the pages, with a warning.
func leaveOutNav(l *listing, p string, opts Options) {
	l.pages = slices.DeleteFunc(l.pages, func(q string) bool { return q == p })
	opts.warn(p, fmt.Errorf("%w: a nav of links to folders (as MkDocs' literate-nav plugin reads one), not a page; the folders' pages are read in folder order", errSkipped))
}

// pageFolders are the folders that hold pages, at any depth.
func pageFolders(pages []string) map[string]bool {
	folders := map[string]bool{}
	for _, p := range pages {
		for d := parentDir(p); d != "" && !folders[d]; d = parentDir(d) {
			folders[d] = true
		}
	}
	return folders
}

// namesAFolder reports a table of contents that links to a folder.
func namesAFolder(entries []tocEntry, folders map[string]bool) bool {
	for _, e := range entries {
		if folders[e.Path] || namesAFolder(e.Children, folders) {
			return true
		}
	}
	return false
}
