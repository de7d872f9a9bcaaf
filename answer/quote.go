package answer

import (
	"slices"
	"sort"
	"strings"

	"github.com/textbook-rag/rag"
)

// The quote: what of a picked section the reader is given. It takes the
// units and the picked windows, never the candidates' features.

// quote returns the passages that quoting windows ws gives: their
// section, as quoteSections chooses, and for a question that asks for a
// list (list) the headings of the section's parts; in book order, each
// unit once. It reads units and windows only, never the candidates'
// features: what is quoted does not depend on how it was picked.
func (ans *Answerer) quote(units []*unit, chunks []rag.ScoredChunk, ws []window, list bool) []rag.Passage {
	sel := quoteSections(units, ws)
	if list {
		sel = withSubsections(units, sel, ws)
	}
	sort.SliceStable(sel, func(a, b int) bool {
		pa, _ := ans.book.Position(chunks[sel[a].chunk].ID)
		pb, _ := ans.book.Position(chunks[sel[b].chunk].ID)
		if pa != pb {
			return pa < pb
		}
		return sel[a].pos < sel[b].pos
	})
	out := make([]rag.Passage, 0, len(sel))
	quoted := map[string]bool{}
	for _, u := range sel {
		// Adjacent chunks overlap: quote a repeated unit once.
		if quoted[u.text] {
			continue
		}
		quoted[u.text] = true
		out = append(out, rag.Passage{Text: u.text, Heading: u.heading, Chunk: &chunks[u.chunk], Paragraph: u.para})
	}
	return out
}

// window is a run of up to maxWindow consecutive units of one section:
// an answer often takes two or three sentences to state. score is the
// share of the question's information its text states.
type window struct {
	from, to int // units[from:to]
	score    float64
}

// quoteBudget bounds, in characters, what is quoted of one section beyond
// the window itself: about 300 words, the length of a textbook section
// that states one point with its list, table or example, short enough to
// read in a minute. It is a choice of what a reader gets, not a fitted
// weight; measured by leave-one-book-out over the shared books (worded
// right, wrong): 1,200 characters 54.6%, 2.0%; 2,000 62.1%, 1.9%; 3,000
// cuts fewer answers short still but reads as a page, not an answer.
const quoteBudget = 2000

// quoteSections quotes, for each window, its section: the window itself,
// then the section's other passages from the most to the least telling
// while the quote stays within quoteBudget. A section is the book's own
// unit of explanation, and the sentence that finishes an answer ("... and
// the motor controllers need 1000 Hz") is often not the one that matched
// best. A section within quoteBudget is quoted whole, and one whose prose
// is within it, whole but for code that does not fit. A list or table is
// quoted whole when it fits, else by its telling lines; the line that
// introduces a quoted list or code block comes with it.
func quoteSections(units []*unit, windows []window) []*unit {
	picked := map[*unit]bool{}
	used := 0 // shared by the windows: parts of one section in overlapping chunks
	for _, w := range windows {
		key := keyOf(units[w.from])
		var section []int
		for i, u := range units {
			if keyOf(u) == key {
				section = append(section, i)
			}
		}
		if n := blockChars(units, section); used+n <= quoteBudget {
			// A short section is quoted whole: it is one explanation, and
			// the lines after the best-matching one (a formula, the list
			// a lead-in announces) are often the answer.
			used += n
			for _, i := range section {
				picked[units[i]] = true
			}
			continue
		}
		if n := proseChars(units, section, w); used+n <= quoteBudget {
			used += n + quoteProse(units, section, w, picked, quoteBudget-used-n)
			continue
		}
		used += finishWindow(units, section, w, picked, quoteBudget-used)
		for i := w.from; i < w.to; i++ {
			picked[units[i]] = true
		}
		used += finishItems(units, section, picked, quoteBudget-used)
		used += openSection(units, section, picked, quoteBudget-used)
		used += listSiblings(units, w, picked, quoteBudget-used)
		blocks := blocksOf(units, section)
		var rest [][]int
		for _, b := range blocks {
			if allPicked(units, b, picked) {
				continue
			}
			if b[len(b)-1] >= w.from && b[0] < w.to {
				for _, i := range b {
					if i >= w.from && i < w.to || len(b) <= maxBlockUnits {
						picked[units[i]] = true
					}
				}
				continue
			}
			rest = append(rest, b)
		}
		sort.SliceStable(rest, func(a, b int) bool { return blockScore(units, rest[a]) > blockScore(units, rest[b]) })
		for _, b := range rest {
			if blockScore(units, b) < quoteFloor*w.score {
				break
			}
			if n := blockChars(units, b); used+n <= quoteBudget && len(b) <= maxBlockUnits {
				used += n
				for _, i := range b {
					picked[units[i]] = true
				}
				continue
			}
			// Too long to quote whole: its telling lines, as many as fit.
			for _, i := range b {
				if n := len(units[i].text); units[i].score >= quoteFloor*w.score && used+n <= quoteBudget {
					used += n
					picked[units[i]] = true
				}
			}
		}
	}
	introduceQuoted(units, picked)
	var sel []*unit
	for _, u := range units {
		if picked[u] {
			sel = append(sel, u)
		}
	}
	return sel
}

// proseChars counts the characters of a section's units (indices into
// units, in order) but its code blocks outside window w.
func proseChars(units []*unit, section []int, w window) int {
	n := 0
	for _, i := range section {
		if units[i].kind != code || i >= w.from && i < w.to {
			n += len(units[i].text)
		}
	}
	return n
}

// quoteProse quotes a section whose prose fits the budget once its code
// is left out: a long example does not crowd out the sentence after it
// that answers ("This behaviour is called batching"). It adds to picked
// the section's prose and the window, then its other code blocks in book
// order while they fit in budget characters, and returns the characters
// of that code.
func quoteProse(units []*unit, section []int, w window, picked map[*unit]bool, budget int) int {
	for _, i := range section {
		if units[i].kind != code || i >= w.from && i < w.to {
			picked[units[i]] = true
		}
	}
	used := 0
	for _, i := range section {
		if u := units[i]; !picked[u] && used+len(u.text) <= budget {
			used += len(u.text)
			picked[u] = true
		}
	}
	return used
}

// finishWindow adds to picked what completes window w within its section
// (indices into units, in order), up to budget characters, and returns
// the characters it added: the rest of the paragraphs the window's
// sentences come from (the sentence after the best match often finishes
// it: "It might consider ..."), then the prose that a window ending in a
// lead-in (":") announces, paragraph by paragraph.
func finishWindow(units []*unit, section []int, w window, picked map[*unit]bool, budget int) int {
	type paraKey struct{ chunk, para int }
	paras := map[paraKey]bool{}
	for i := w.from; i < w.to; i++ {
		if u := units[i]; u.para > 0 {
			paras[paraKey{u.chunk, u.para}] = true
		}
	}
	used := 0
	take := func(u *unit) bool {
		if picked[u] {
			return true
		}
		if used+len(u.text) > budget {
			return false
		}
		used += len(u.text)
		picked[u] = true
		return true
	}
	for _, i := range section {
		if u := units[i]; u.para > 0 && paras[paraKey{u.chunk, u.para}] {
			take(u)
		}
	}
	last := units[w.to-1]
	// A lead-in right after the window ("Where:" after a formula, "The
	// result is printed:" after a command) goes on with it, and so does
	// what it introduces (see introduceQuoted).
	if w.to < len(units) && keyOf(units[w.to]) == keyOf(last) && units[w.to].kind == label {
		take(units[w.to])
	}
	if !strings.HasSuffix(strings.TrimSpace(last.text), ":") {
		return used
	}
	for _, i := range section {
		u := units[i]
		if i < w.to || u.chunk != last.chunk {
			continue
		}
		if u.kind != sentence || !take(u) {
			break
		}
	}
	return used
}

// finishItems adds to picked, within budget characters, what the list
// items holding the picked units of a section (indices into units, in
// order) hold: an item is one point of the author's, and its sub-items,
// code and paragraphs finish it ("Best practice: keep max_step_size
// small", "The accuracy is good at over 80%"). A part that does not fit
// is left out and the rest still considered. It returns the characters
// it added.
func finishItems(units []*unit, section []int, picked map[*unit]bool, budget int) int {
	used := 0
	done := map[int]bool{}
	for _, i := range section {
		if !picked[units[i]] {
			continue
		}
		root := i
		if units[i].kind != item {
			root = i - units[i].up
		}
		if root == i && units[i].kind != item || done[root] {
			continue
		}
		done[root] = true
		for j := root; j < len(units) && (j == root || holds(units, root, j)); j++ {
			u := units[j]
			if picked[u] || used+len(u.text) > budget {
				continue
			}
			used += len(u.text)
			picked[u] = true
		}
	}
	return used
}

// openSection adds to picked, within budget characters, the section's
// opening paragraph (indices into units, in order): a section states its
// point first and details it after ("Before writing the loop we need to:"
// and the list it announces, which introduceQuoted adds). It returns the
// characters it added.
func openSection(units []*unit, section []int, picked map[*unit]bool, budget int) int {
	first := units[section[0]]
	if first.para == 0 {
		return 0
	}
	used := 0
	for _, i := range section {
		u := units[i]
		if u.para != first.para || u.chunk != first.chunk {
			break
		}
		if picked[u] {
			continue
		}
		if used+len(u.text) > budget {
			break
		}
		used += len(u.text)
		picked[u] = true
	}
	return used
}

// listSiblings adds to picked, within budget characters, the other items
// of the list the window lies in or announces, their own lines without
// what they hold:
// asked about one step or part, a reader sees where it stands among the
// others ("1. Robot model, 2. Simulation, ... 5. System integration").
// It returns the characters it added.
func listSiblings(units []*unit, w window, picked map[*unit]bool, budget int) int {
	root := -1
	to := w.to
	// A window ending in a lead-in ("might look like this:") reaches
	// into the list it announces.
	if to < len(units) && strings.HasSuffix(strings.TrimSpace(units[to-1].text), ":") && units[to].kind == item {
		to++
	}
	for i := w.from; i < to && root < 0; i++ {
		r := i
		for units[r].kind != item && units[r].up > 0 {
			r -= units[r].up
		}
		if units[r].kind == item {
			root = r
		}
	}
	if root < 0 {
		return 0
	}
	parent := -1
	if units[root].up > 0 {
		parent = root - units[root].up
	}
	key := keyOf(units[root])
	sibling := func(i int) (bool, bool) { // (sibling, still in the list)
		u := units[i]
		if keyOf(u) != key {
			return false, false
		}
		owner := -1
		if u.up > 0 {
			owner = i - u.up
		}
		switch {
		case owner == parent && u.kind == item:
			return true, true
		case owner == parent:
			return false, false
		}
		return false, owner >= 0 && (parent < 0 || owner > parent)
	}
	first, last := root, root
	for i := root - 1; i >= 0; i-- {
		sib, in := sibling(i)
		if !in {
			break
		}
		if sib {
			first = i
		}
	}
	for i := root + 1; i < len(units); i++ {
		sib, in := sibling(i)
		if !in {
			break
		}
		if sib {
			last = i
		}
	}
	used := 0
	for i := first; i <= last; i++ {
		if sib, _ := sibling(i); !sib || picked[units[i]] {
			continue
		}
		if used+len(units[i].text) > budget {
			break
		}
		used += len(units[i].text)
		picked[units[i]] = true
	}
	return used
}

// holds reports whether the list item units[root] holds units[j],
// directly or through the items it holds.
func holds(units []*unit, root, j int) bool {
	for k := j; units[k].up > 0; {
		k -= units[k].up
		if k == root {
			return true
		}
		if k < root {
			return false
		}
	}
	return false
}

func allPicked(units []*unit, b []int, picked map[*unit]bool) bool {
	for _, i := range b {
		if !picked[units[i]] {
			return false
		}
	}
	return true
}

const (
	// maxBlockUnits: a list or table longer than this is quoted by its
	// matching lines only.
	maxBlockUnits = 12
	// quoteFloor: a passage of the section is quoted only when it is
	// worth at least this share of the window.
	quoteFloor = 0.3
)

// withSubsections adds, after a quoted section that goes on in
// sub-sections, the list of their headings: asked for several things of a
// kind, a section that introduces them ("Gazebo supports several physics
// engines.") names them in the headings of its parts. The list is the
// book's own headings, quoted as a list.
func withSubsections(units []*unit, sel []*unit, windows []window) []*unit {
	for _, w := range windows {
		first := units[w.from]
		last := -1
		for i, u := range units {
			if keyOf(u) == keyOf(first) {
				last = i
			}
		}
		var subs []string
		seen := map[string]bool{}
		for _, u := range units[last+1:] {
			if u.chunk != first.chunk || u.heading.Level <= first.heading.Level {
				break
			}
			if u.heading.Level == first.heading.Level+1 && !seen[u.heading.Text] {
				seen[u.heading.Text] = true
				subs = append(subs, "- "+u.heading.Text)
			}
		}
		if len(subs) < 2 {
			continue
		}
		list := &unit{text: strings.Join(subs, "\n"), kind: item, heading: first.heading, chunk: first.chunk, pos: units[last].pos}
		at := len(sel)
		for k, u := range sel {
			if u.chunk == first.chunk && u.pos > units[last].pos {
				at = k
				break
			}
		}
		sel = slices.Insert(sel, at, list)
	}
	return sel
}

// blocksOf groups a section's units (indices, in order) into the blocks
// an author writes: a list's items, a table's rows, or one sentence or
// code block.
func blocksOf(units []*unit, section []int) [][]int {
	var blocks [][]int
	for _, i := range section {
		u := units[i]
		if n := len(blocks); n > 0 && (u.kind == item || u.kind == row) {
			last := blocks[n-1]
			prev := units[last[len(last)-1]]
			if prev.kind == u.kind && prev.lead == u.lead && prev.chunk == u.chunk && last[len(last)-1] == i-1 {
				blocks[n-1] = append(last, i)
				continue
			}
		}
		blocks = append(blocks, []int{i})
	}
	return blocks
}

func blockScore(units []*unit, b []int) float64 {
	s := 0.0
	for _, i := range b {
		s = max(s, units[i].score)
	}
	return s
}

func blockChars(units []*unit, b []int) int {
	n := 0
	for _, i := range b {
		n += len(units[i].text)
	}
	return n
}

// introduceQuoted adds the list or code block a quoted lead-in line ("Create
// the package:") introduces, and the lead-in of a quoted list.
func introduceQuoted(units []*unit, picked map[*unit]bool) {
	for i, u := range units {
		if !picked[u] || !strings.HasSuffix(strings.TrimSpace(u.text), ":") {
			continue
		}
		for j := i + 1; j < len(units) && j <= i+maxUnits; j++ {
			v := units[j]
			if v.chunk != u.chunk || v.lead != strings.TrimSpace(u.text) {
				break
			}
			picked[v] = true
		}
	}
}
