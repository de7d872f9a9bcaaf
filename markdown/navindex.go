package markdown

import "slices"

// navIndex answers what literate-nav asks of a listing's pages for each
// nav entry (is this a folder, a page, which pages are in it) from maps
// built once, so that reading a nav costs what its entries do, not
// entries × pages.
type navIndex struct {
	files    map[string]bool     // the pages' files
	paths    map[string]int      // pages by path without extension
	under    map[string]int      // pages under each folder, at any depth
	byDir    map[string][]string // the pages right in each folder, in listing order
	expanded map[string]bool     // the folders whose nav has been read
}

func newNavIndex(pages []string) *navIndex {
	x := &navIndex{files: map[string]bool{}, paths: map[string]int{}, under: map[string]int{}, byDir: map[string][]string{}, expanded: map[string]bool{}}
	for _, p := range pages {
		x.files[p] = true
		x.paths[pagePath(p)]++
		dir := parentDir(p)
		x.byDir[dir] = append(x.byDir[dir], p)
		for d := dir; d != ""; d = parentDir(d) {
			x.under[d]++
		}
	}
	return x
}

// remove takes a page (a nav file read as navigation) out of the index.
func (x *navIndex) remove(p string) {
	if !x.files[p] {
		return
	}
	delete(x.files, p)
	x.paths[pagePath(p)]--
	dir := parentDir(p)
	x.byDir[dir] = slices.DeleteFunc(x.byDir[dir], func(q string) bool { return q == p })
	for d := dir; d != ""; d = parentDir(d) {
		x.under[d]--
	}
}
