package answer

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
	"github.com/textbook-rag/rag/lexical"
)

// Explaining a selection. A question made only of words that point at the
// reader's selection ("What does this mean?", "Explain this") gets the
// whole selection as its evidence (see SelectedEvidence), which alone
// only repeats it. The book can add two things of its own, quoted as they
// stand: how it defines the selection's key terms elsewhere, and the
// sentences that lead into the selection where the book holds it.

const (
	// maxDefinitions: the definitions quoted for one selection at most.
	maxDefinitions = 3
	// maxLeadIn: the sentences before the selection quoted at most.
	maxLeadIn = 2
	// anchorWords words of the selection in a row place it in the book;
	// a selection shorter than minAnchorWords is not placed (a term or
	// two occurs in too many places).
	anchorWords    = 8
	minAnchorWords = 4
	// anchorReach: how far into the selection the anchor may start. A
	// copied heading, or a word the reader's selection cut in two, comes
	// before the text the book's units hold.
	anchorReach = 40
	// commonShare: a stem used in more than this share of the book's
	// chunks (and in more than minCommon) is the book's everyday
	// vocabulary, not a key term.
	commonShare = 0.2
	minCommon   = 4
	// minKeyStems: a selection's leading words (see leadingStems).
	minKeyStems = 5
	// minKeyRunes: a stem shorter than this (an "x", "id") is a symbol or
	// an abbreviation, not a key term.
	minKeyRunes = 3
	// maxRelated: the other sections an explanation links to at most.
	maxRelated = 3
	// minShared, minRare and minCoverage: what a section shares with a
	// selection to develop its idea (see developing).
	minShared   = 2
	minRare     = 1.6
	minCoverage = 0.1
	// sameChapter weighs a section of the selection's own chapter, which
	// develops the chapter's one subject, against one elsewhere.
	sameChapter = 1.5
)

// ExplainSelection returns what the rest of the book adds to a selection
// when the question only points at it; ok is false for any other
// question, which the selection alone must answer (see
// SelectedEvidence). The explanation quotes the sentences right before
// the selection in its section, when the selection is found in the book,
// the book's definitions of the terms the selection uses, from elsewhere
// in the book, and links to the other sections that develop the same
// idea: never the selection's own text. It is empty when the book holds
// none of these.
func (ans *Answerer) ExplainSelection(question *analysis.Question, selected string) (exp rag.Explanation, ok bool) {
	if q := ans.withoutPointers(ans.own(question)); len(q.Terms) != 0 {
		return exp, false
	}
	bt := ans.text()
	sel := plainWords(selected)
	selIDs := bt.ids(sel)
	first, last, found := bt.locate(sel, selIDs)
	chapter := ""
	var lead []int
	if found {
		chapter = bt.units[first].chunk.ChapterPath
		key := ans.keyStems(selected)
		leading := ans.leadingStems(stemSequence(selected))
		lead = bt.leadIn(first, selIDs, func(i int) bool {
			for s := range analysis.StemSet(bt.units[i].text) {
				if _, ok := key[s]; ok && leading[s] {
					return true
				}
			}
			return false
		})
	}
	for _, i := range lead {
		exp.LeadIn = append(exp.LeadIn, bt.passage(i))
	}
	// A definition comes from elsewhere: not the selection, wherever the
	// book holds its text, nor the lead-in.
	skip := func(i int) bool {
		return found && i >= first && i <= last || slices.Contains(lead, i) || containsWords(selIDs, bt.wordsOf(i))
	}
	quoted := map[int]bool{}
	if found {
		for i := first; i <= last; i++ {
			quoted[int(bt.units[i].section)] = true
		}
	}
	for _, i := range lead {
		quoted[int(bt.units[i].section)] = true
	}
	for _, d := range ans.definitionsFor(selected, chapter, skip) {
		exp.Definitions = append(exp.Definitions, rag.Definition{Term: d.term, Passage: bt.passage(d.unit)})
		quoted[int(bt.units[d.unit].section)] = true
	}
	for _, k := range ans.developing(selected, chapter, quoted) {
		exp.Related = append(exp.Related, bt.sectionLink(k))
	}
	return exp, true
}

// locate finds a selection in the book: the first and last of the units
// it covers. It is placed where anchorWords of its words in a row (all of
// a shorter selection) match the book's, starting within anchorReach
// words of its start, and then matched on either side as far as it goes;
// among several places, the longest match wins, then the first in the
// book. The first word may be the end of a book word, cut by the
// reader's selection. ids are the selection's words as numbers (see
// bookText.ids).
func (bt *bookText) locate(sel []string, ids []int32) (first, last int, ok bool) {
	n := min(anchorWords, len(sel))
	if n < minAnchorWords {
		return 0, 0, false
	}
	for i := 0; i < anchorReach && i+n <= len(sel); i++ {
		if ids[i] < 0 {
			continue
		}
		bestFrom, bestTo := -1, -1
		for _, at := range bt.at(ids[i]) {
			p := int(at)
			if p+n > len(bt.words) || !slices.Equal(bt.words[p:p+n], ids[i:i+n]) {
				continue
			}
			to := p + n // one past the match
			for j := i + n; j < len(sel) && to < len(bt.words) && bt.words[to] == ids[j]; j++ {
				to++
			}
			from, j := p, i
			for j > 0 && from > 0 && bt.words[from-1] == ids[j-1] {
				from--
				j--
			}
			if j == 1 && from > 0 && strings.HasSuffix(bt.strs[bt.words[from-1]], sel[0]) {
				from--
			}
			if to-from > bestTo-bestFrom {
				bestFrom, bestTo = from, to
			}
		}
		if bestFrom >= 0 {
			return bt.unitAt(bestFrom), bt.unitAt(bestTo - 1), true
		}
	}
	return 0, 0, false
}

// leadIn returns the units that lead into the one at first: up to
// maxLeadIn sentences right before it in its section, in book order. A
// selection that starts inside a list is led into by the line that
// introduces the list (and the sentence before it); a paragraph that
// follows a list, by the list's items that share one of its leading key
// words (shares). A heading, another section, or a table or code block ends
// the lead-in.
func (bt *bookText) leadIn(first int, sel []int32, shares func(int) bool) []int {
	start := bt.units[first]
	if start.isHeading {
		return nil // the selection starts with its heading
	}
	var out []int
	for j := first - 1; j >= 0 && len(out) < maxLeadIn; j-- {
		p := bt.units[j]
		if p.isHeading || p.section != start.section {
			break
		}
		if p.from == p.to || containsWords(sel, bt.wordsOf(j)) {
			continue // an image, or a unit the selection holds after all
		}
		if p.kind == sentence || p.kind == label {
			out = append(out, j)
			continue
		}
		sibling := len(out) == 0 && start.lead != "" && p.lead == start.lead && p.kind == start.kind
		if sibling {
			continue
		}
		if len(out) == 0 && p.kind == item && start.kind == sentence {
			out = bt.itemsAbout(j, shares)
		}
		break
	}
	slices.Reverse(out)
	return out
}

// itemsAbout returns the items of the list that ends at unit last that
// share a leading key word with the selection (shares), nearest first, up to
// maxLeadIn: a paragraph after a list often goes on about one of its
// items ("- `canceled()` when the client asked to stop", then "Stopping
// a physical robot takes time.").
func (bt *bookText) itemsAbout(last int, shares func(int) bool) []int {
	var out []int
	lead := bt.units[last].lead
	for j := last; j >= 0 && len(out) < maxLeadIn; j-- {
		p := bt.units[j]
		if p.isHeading || p.kind != item || p.lead != lead || p.section != bt.units[last].section {
			break
		}
		if shares(j) {
			out = append(out, j)
		}
	}
	return out
}

// keyStems are a selection's key words, with their IDF: the stems that
// are not the book's everyday vocabulary, a number or a letter or two.
func (ans *Answerer) keyStems(selected string) map[string]float64 {
	key := map[string]float64{}
	for _, s := range stemSequence(selected) {
		if _, seen := key[s]; !seen && !ans.everyday(s) && len([]rune(s)) >= minKeyRunes {
			key[s] = ans.book.IDF(s)
		}
	}
	return key
}

// developing picks the other sections that develop a selection's idea,
// at most maxRelated, the closest first. A section does when it uses
// minShared of the selection's key words (those that are not the book's
// everyday vocabulary), and they weigh, by IDF, minRare of the book's
// rarest words and minCoverage of all the selection's key words. A word
// or two a selection shares with a section ("distance", "report") say
// nothing of its idea: "stopping a robot takes time, a base needs
// distance to brake" is not developed by the section on LiDAR, which
// measures distance. Sections already quoted (the selection's own, the
// lead-in's, a definition's) and quizzes are left out. The sections are
// ranked by BM25 on the key words, those of the selection's chapter
// first among equals (sameChapter), one link a heading's name: BM25 as
// the retriever ranks (lexical.TermScore), sections for documents.
func (ans *Answerer) developing(selected, chapter string, quoted map[int]bool) []int {
	bt := ans.text()
	key := ans.keyStems(selected)
	// In order, so that equal sums are equal to the last bit.
	stems := slices.Sorted(maps.Keys(key))
	total := 0.0
	for _, s := range stems {
		total += key[s]
	}
	rarest := ans.book.IDF("")
	avg := 0.0
	for _, sec := range bt.sections {
		avg += float64(sec.words)
	}
	avg /= float64(max(len(bt.sections), 1))
	type shared struct {
		n       int
		w, rank float64
	}
	byKey := map[int32]*shared{}
	for _, s := range stems {
		idf := key[s]
		for _, use := range bt.usesOf(s) {
			sec := bt.sections[use.k]
			if quoted[int(use.k)] || sec.assessment || sec.first < 0 {
				continue
			}
			sh := byKey[use.k]
			if sh == nil {
				sh = &shared{}
				byKey[use.k] = sh
			}
			sh.n++
			sh.w += idf
			sh.rank += lexical.TermScore(idf, float64(use.n), lexical.LengthNorm(float64(sec.words), avg))
		}
	}
	type scored struct {
		k int
		w float64
	}
	var found []scored
	for k, sh := range byKey {
		if sh.n < minShared || sh.w < minRare*rarest || sh.w < minCoverage*total {
			continue
		}
		rank := sh.rank
		if chapter != "" && bt.units[bt.sections[k].first].chunk.ChapterPath == chapter {
			rank *= sameChapter
		}
		found = append(found, scored{int(k), rank})
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].w != found[j].w {
			return found[i].w > found[j].w
		}
		return found[i].k < found[j].k
	})
	var out []int
	named := map[string]bool{}
	for _, f := range found {
		// Two sections of a chapter under one heading ("Refactor") would
		// be two links of the same name.
		p := bt.units[bt.sections[f.k].first]
		name := p.chunk.ChapterPath + "\x00" + p.heading.Text
		if named[name] {
			continue
		}
		named[name] = true
		out = append(out, f.k)
		if len(out) == maxRelated {
			break
		}
	}
	return out
}

// everyday reports a stem used in more than commonShare of the book's
// chunks (and more than minCommon), or a number: the book's everyday
// vocabulary, never what a selection is about.
func (ans *Answerer) everyday(stem string) bool {
	return float64(ans.book.DF(stem)) > max(float64(minCommon), commonShare*ans.book.N()) || analysis.IsNumber(stem)
}

// leadingStems are the minKeyStems words of a selection that weigh most,
// a word weighing the information it carries in the book (IDF) each time
// the selection uses it. Books set features and advice before a colon as
// they set terms ("- **Speed**: how fast?", "**Result**: ..."), so such a
// line is quoted only for one of the selection's leading words.
func (ans *Answerer) leadingStems(seq []string) map[string]bool {
	var stems []string
	weight := map[string]float64{}
	for _, s := range seq {
		if analysis.IsNumber(s) {
			continue
		}
		if weight[s] == 0 {
			stems = append(stems, s)
		}
		weight[s] += ans.book.IDF(s)
	}
	sort.SliceStable(stems, func(i, j int) bool { return weight[stems[i]] > weight[stems[j]] })
	leading := map[string]bool{}
	for _, s := range stems[:min(len(stems), minKeyStems)] {
		leading[s] = true
	}
	return leading
}
