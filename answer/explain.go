package answer

import (
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
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
	// maxRelated: the other sections an explanation links to at most.
	maxRelated = 3
	// minShared, minRare and minCoverage: what a section shares with a
	// selection to develop its idea (see developing).
	minShared   = 2
	minRare     = 1.6
	minCoverage = 0.1
	// termSaturation and lengthWeight rank the sections that develop a
	// selection's idea as BM25 ranks documents (its k1 and b): a word's
	// repeats count less and less, and a long section shares more words
	// by chance.
	termSaturation = 1.2
	lengthWeight   = 0.75
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
func (ans *Answerer) ExplainSelection(question, selected string) (exp rag.Explanation, ok bool) {
	if q := ans.withoutPointers(ans.book.Analyze(question), question); len(q.Terms) != 0 {
		return exp, false
	}
	bt := ans.text()
	sel := plainWords(selected)
	first, last, found := bt.locate(sel)
	chapter := ""
	var lead []int
	if found {
		chapter = bt.units[first].chunk.ChapterPath
		key := ans.keyStems(selected)
		leading := ans.leadingStems(stemSequence(selected))
		lead = bt.leadIn(first, sel, func(i int) bool {
			for s := range analysis.StemSet(bt.units[i].u.text) {
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
		return found && i >= first && i <= last || slices.Contains(lead, i) || containsWords(sel, bt.units[i].words)
	}
	quoted := map[int]bool{}
	if found {
		for i := first; i <= last; i++ {
			quoted[bt.sectionOf[i]] = true
		}
	}
	for _, i := range lead {
		quoted[bt.sectionOf[i]] = true
	}
	for _, d := range ans.definitionsFor(selected, chapter, skip) {
		exp.Definitions = append(exp.Definitions, rag.Definition{Term: d.term, Passage: bt.passage(d.unit)})
		quoted[bt.sectionOf[d.unit]] = true
	}
	for _, k := range ans.developing(selected, chapter, quoted) {
		exp.Related = append(exp.Related, bt.sectionLink(k))
	}
	return exp, true
}

// bookText is the whole book as one run of quotable units and their
// headings in book order, the overlap between adjacent chunks taken out,
// with the words of each as a reader sees them: where a selection sits,
// what comes before it, and which units define a term.
type bookText struct {
	units []placedUnit
	// words are the units' words in order; owner[k] is the unit of
	// words[k], and at[w] lists where word w occurs.
	words []string
	owner []int32
	at    map[string][]int32
	defs  []definitionSite
	// sections are the book's sections in order; sectionOf[i] is the
	// section of unit i; inSections[stem] lists the sections that use a
	// stem, in order, with how often each does.
	sections   []sectionSite
	sectionOf  []int
	inSections map[string][]sectionUse
}

// sectionUse is how often section k uses a stem.
type sectionUse struct {
	k, n int32
}

// sectionSite is one section of the book: the units under one heading.
type sectionSite struct {
	first int // its first unit that is not a heading, -1 when none
	// words counts the stems of its heading and text, function words
	// left out.
	words int
	// assessment marks a quiz or an exercise, which asks about an idea,
	// and a chapter's goals, summary or a module's overview, which
	// restate it: none develops an idea.
	assessment bool
}

// placedUnit is a unit of the book, or a heading (u nil): a selection
// copied from the page holds the headings it spans.
type placedUnit struct {
	u     *unit
	chunk *rag.Chunk
	words []string
	// section tells the heading the unit sits under, in its chapter.
	section string
}

// definitionSite is a unit that defines a term in so many words.
type definitionSite struct {
	unit int // in bookText.units
	term string
	// stems are the term's stems, in order, function words left out.
	stems []string
	key   string
	// info is what the term tells in this book: the sum of its stems'
	// IDF.
	info float64
	// glossary marks a glossary's entry: it gives the book's own sense of
	// the term.
	glossary bool
	// labelled marks a line that only sets its term before a colon or a
	// dash ("- **Bias**: constant offset ..."): books write lists of
	// features and advice that way too (see leadingStems).
	labelled bool
}

// text returns the book's bookText, built on first use.
func (ans *Answerer) text() *bookText {
	ans.textOnce.Do(func() { ans.bookText = ans.buildText() })
	return ans.bookText
}

func (ans *Answerer) buildText() *bookText {
	bt := &bookText{at: map[string][]int32{}}
	chunks := ans.book.Chunks()
	var prev []*unit
	var last *unit
	for ci := range chunks {
		c := &chunks[ci]
		units := ans.units[c.ID]
		for _, u := range units[overlap(prev, units):] {
			section := c.ChapterPath + "\x00" + u.heading.Text + "\x00" + u.heading.Anchor
			if n := len(bt.units); n == 0 || bt.units[n-1].section != section {
				bt.add(placedUnit{chunk: c, words: plainWords(u.heading.Text), section: section})
			}
			bt.add(placedUnit{u: u, chunk: c, words: unitWords(u, last), section: section})
			last = u
		}
		prev = units
	}
	bt.buildSections()
	for i, p := range bt.units {
		if p.u == nil {
			continue
		}
		first := i > 0 && bt.units[i-1].u == nil // the first unit under its heading
		if analysis.AssessmentTitle(p.chunk.ChapterTitle+" "+p.chunk.ChapterPath) || analysis.AssessmentTitle(p.u.heading.Text) {
			continue // a quiz's answer, not the book's definition
		}
		term, labelled := definitionOf(p, first)
		stems := termSequence(term)
		if len(stems) == 0 {
			continue
		}
		d := definitionSite{unit: i, term: term, stems: stems, key: termKey(stems), glossary: first && term == p.u.heading.Text, labelled: labelled}
		everyday := true
		for _, s := range stems {
			d.info += ans.book.IDF(s)
			everyday = everyday && ans.everyday(s)
		}
		if !everyday {
			bt.defs = append(bt.defs, d)
		}
	}
	return bt
}

// buildSections groups the units by the section they sit under, with the
// stems of each section's heading and text.
func (bt *bookText) buildSections() {
	bt.sectionOf = make([]int, len(bt.units))
	bt.inSections = map[string][]sectionUse{}
	for i, p := range bt.units {
		if i == 0 || p.section != bt.units[i-1].section {
			s := sectionSite{first: -1}
			s.assessment = analysis.AssessmentTitle(p.chunk.ChapterTitle+" "+p.chunk.ChapterPath) || analysis.AssessmentTitle(headingOf(p))
			bt.sections = append(bt.sections, s)
		}
		k := len(bt.sections) - 1
		bt.sectionOf[i] = k
		s := &bt.sections[k]
		text := headingOf(p)
		if p.u != nil {
			text = p.u.text
			if s.first < 0 {
				s.first = i
				s.assessment = s.assessment || p.u.goal || p.u.summary || p.u.overview
			}
		}
		for _, t := range analysis.Tokenize(text) {
			if analysis.Stopwords[t.Word] {
				continue
			}
			s.words++
			uses := bt.inSections[t.Stem]
			if n := len(uses); n > 0 && uses[n-1].k == int32(k) {
				uses[n-1].n++
				continue
			}
			bt.inSections[t.Stem] = append(uses, sectionUse{k: int32(k), n: 1})
		}
	}
}

// headingOf is the text of the heading a unit sits under.
func headingOf(p placedUnit) string {
	if p.u != nil {
		return p.u.heading.Text
	}
	h, _, _ := strings.Cut(strings.TrimPrefix(p.section, p.chunk.ChapterPath+"\x00"), "\x00")
	return h
}

func (bt *bookText) add(p placedUnit) {
	i := int32(len(bt.units))
	bt.units = append(bt.units, p)
	for _, w := range p.words {
		bt.at[w] = append(bt.at[w], int32(len(bt.words)))
		bt.words = append(bt.words, w)
		bt.owner = append(bt.owner, i)
	}
}

// overlap counts the units a chunk starts with that end the chunk before
// it: the chunker repeats the last sentences or lines of a chunk at the
// start of the next.
func overlap(prev, units []*unit) int {
	for n := min(len(prev), len(units), 12); n > 0; n-- {
		same := true
		for k := 0; k < n && same; k++ {
			same = slices.Equal(unitWords(prev[len(prev)-n+k], nil), unitWords(units[k], nil))
		}
		if same {
			return n
		}
	}
	return 0
}

// unitWords are the words of a unit as a reader sees them. A table row
// repeats its table's header: the header's words are the first row's
// (prev is the unit before, nil for a row alone).
func unitWords(u, prev *unit) []string {
	t := u.text
	if u.kind == row {
		header, _, framed := strings.Cut(t, "\n")
		line := t[strings.LastIndexByte(t, '\n')+1:]
		if !framed || prev != nil && prev.kind == row && strings.HasPrefix(prev.text, header+"\n") {
			header = ""
		}
		t = header + "\n" + line
	}
	return plainWords(t)
}

var (
	mdImage   = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`)
	mdLinkURL = regexp.MustCompile(`\]\([^)]*\)`)
	// htmlTag matches an HTML tag or an MDX component, which a page
	// renders rather than shows; the tags of XML in code are kept.
	htmlTag    = regexp.MustCompile(`</?(?:[A-Z][\w.]*|(?i:a|abbr|b|br|center|code|del|details|div|em|figcaption|figure|font|hr|i|iframe|img|ins|kbd|li|mark|ol|p|pre|s|small|span|strong|sub|summary|sup|table|tbody|td|th|thead|tr|u|ul|video))\b[^>\n]*>`)
	anchorMark = regexp.MustCompile(`\{#[^}\n]*\}|\[\[[^\]\s]*\]\]`)
	fenceLine  = regexp.MustCompile("^\\s*(```|~~~)")
)

// plainWords reduces Markdown, or text copied from the rendered page, to
// its lower-cased words: the marks, a link's target, an image, a heading's
// anchor, a code fence's line and, outside code, a tag and a list item's
// marker or number are not what a reader sees (or copies). Text and its
// rendering give the same words.
func plainWords(text string) []string {
	var b strings.Builder
	code := false
	for _, line := range strings.Split(text, "\n") {
		if fenceLine.MatchString(line) {
			code = !code
			continue
		}
		if !code {
			line = itemLine.ReplaceAllString(line, " ")
			line = mdImage.ReplaceAllString(line, " ")
			line = mdLinkURL.ReplaceAllString(line, " ")
			line = htmlTag.ReplaceAllString(line, " ")
			line = anchorMark.ReplaceAllString(line, " ")
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return strings.FieldsFunc(strings.ToLower(b.String()), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// containsWords reports whether part occurs in whole, word for word.
func containsWords(whole, part []string) bool {
	if len(part) == 0 {
		return false
	}
	for i := 0; i+len(part) <= len(whole); i++ {
		if slices.Equal(whole[i:i+len(part)], part) {
			return true
		}
	}
	return false
}

// locate finds a selection in the book: the first and last of the units
// it covers. It is placed where anchorWords of its words in a row (all of
// a shorter selection) match the book's, starting within anchorReach
// words of its start, and then matched on either side as far as it goes;
// among several places, the longest match wins, then the first in the
// book. The first word may be the end of a book word, cut by the
// reader's selection.
func (bt *bookText) locate(sel []string) (first, last int, ok bool) {
	n := min(anchorWords, len(sel))
	if n < minAnchorWords {
		return 0, 0, false
	}
	for i := 0; i < anchorReach && i+n <= len(sel); i++ {
		bestFrom, bestTo := -1, -1
		for _, at := range bt.at[sel[i]] {
			p := int(at)
			if p+n > len(bt.words) || !slices.Equal(bt.words[p:p+n], sel[i:i+n]) {
				continue
			}
			to := p + n // one past the match
			for j := i + n; j < len(sel) && to < len(bt.words) && bt.words[to] == sel[j]; j++ {
				to++
			}
			from, j := p, i
			for j > 0 && from > 0 && bt.words[from-1] == sel[j-1] {
				from--
				j--
			}
			if j == 1 && from > 0 && strings.HasSuffix(bt.words[from-1], sel[0]) {
				from--
			}
			if to-from > bestTo-bestFrom {
				bestFrom, bestTo = from, to
			}
		}
		if bestFrom >= 0 {
			return int(bt.owner[bestFrom]), int(bt.owner[bestTo-1]), true
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
func (bt *bookText) leadIn(first int, sel []string, shares func(int) bool) []int {
	start := bt.units[first]
	if start.u == nil {
		return nil // the selection starts with its heading
	}
	var out []int
	for j := first - 1; j >= 0 && len(out) < maxLeadIn; j-- {
		p := bt.units[j]
		if p.u == nil || p.section != start.section {
			break
		}
		if len(p.words) == 0 || containsWords(sel, p.words) {
			continue // an image, or a unit the selection holds after all
		}
		if p.u.kind == sentence || p.u.kind == label {
			out = append(out, j)
			continue
		}
		sibling := len(out) == 0 && start.u.lead != "" && p.u.lead == start.u.lead && p.u.kind == start.u.kind
		if sibling {
			continue
		}
		if len(out) == 0 && p.u.kind == item && start.u.kind == sentence {
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
	lead := bt.units[last].u.lead
	for j := last; j >= 0 && len(out) < maxLeadIn; j-- {
		p := bt.units[j]
		if p.u == nil || p.u.kind != item || p.u.lead != lead || p.section != bt.units[last].section {
			break
		}
		if shares(j) {
			out = append(out, j)
		}
	}
	return out
}

// passage is unit i as a quoted passage, with its chunk as the source. It
// was found by looking the selection up, not retrieved: it carries no
// retrieval score.
func (bt *bookText) passage(i int) rag.Passage {
	p := bt.units[i]
	return rag.Passage{Text: p.u.text, Heading: p.u.heading, Chunk: &rag.ScoredChunk{Chunk: *p.chunk}, Paragraph: p.u.para}
}

// sectionLink is section k as a link: its heading, with the chunk that
// holds its first unit as the source. Nothing of it is quoted.
func (bt *bookText) sectionLink(k int) rag.Passage {
	p := bt.units[bt.sections[k].first]
	return rag.Passage{Heading: p.u.heading, Chunk: &rag.ScoredChunk{Chunk: *p.chunk}}
}

// keyStems are a selection's key words, with their IDF: the stems that
// are not the book's everyday vocabulary, a number or a letter or two.
func (ans *Answerer) keyStems(selected string) map[string]float64 {
	key := map[string]float64{}
	for _, s := range stemSequence(selected) {
		if _, seen := key[s]; !seen && !ans.everyday(s) && len([]rune(s)) >= 3 {
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
// first among equals (sameChapter), one link a heading's name.
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
		for _, use := range bt.inSections[s] {
			sec := bt.sections[use.k]
			if quoted[int(use.k)] || sec.assessment || sec.first < 0 {
				continue
			}
			sh := byKey[use.k]
			if sh == nil {
				sh = &shared{}
				byKey[use.k] = sh
			}
			tf := float64(use.n)
			norm := 1 - lengthWeight + lengthWeight*float64(sec.words)/avg
			sh.n++
			sh.w += idf
			sh.rank += idf * tf * (termSaturation + 1) / (tf + termSaturation*norm)
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
		name := p.chunk.ChapterPath + "\x00" + p.u.heading.Text
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

// definitionsFor picks the book's definitions of the terms a selection
// uses, in full or, for a term of its own chapter, by its last word (see
// usesHead): at most maxDefinitions, one a term, none from the selection
// itself or the lead-in (skip). Terms the selection does not define
// itself come first, then the most informative; a term defined in several
// places is quoted from the selection's own chapter when it is defined
// there, else from where the book first defines it.
//
// A definition must be of the selection's subject: beside its term, it
// or its heading uses another of the selection's informative words (the
// book defines "**Absolute**: knows its position on power-up" of
// encoders, not of time), unless it is a glossary's entry, which gives
// the sense the whole book uses, or a term of the selection's chapter
// named by its last word, which the chapter gives its sense. A line that only sets a term before a
// colon defines one of the selection's leading words (see leadingStems).
func (ans *Answerer) definitionsFor(selected, chapter string, skip func(int) bool) []definitionSite {
	bt := ans.text()
	seq := stemSequence(selected)
	leading := ans.leadingStems(seq)
	subject := map[string]bool{}
	for _, s := range seq {
		subject[s] = !ans.everyday(s)
	}
	own := map[string]bool{}
	for _, u := range selectionUnits(readerLines(selected)) {
		if term, _ := definitionOf(placedUnit{u: u}, false); term != "" {
			own[termKey(termSequence(term))] = true
		}
	}
	byKey := map[string]definitionSite{}
	var keys []string
	shared := sharedHeads(bt, chapter)
	// byHead: the selection names the term by a last word no other term
	// of the chapter ends with (usesHead holds terms of two words or more).
	byHead := func(d definitionSite) bool {
		return ans.usesHead(seq, d, chapter) && !shared[d.stems[len(d.stems)-1]]
	}
	for _, d := range bt.defs {
		full := usesTerm(seq, d.stems)
		if !full && !byHead(d) || skip(d.unit) ||
			d.labelled && !slices.ContainsFunc(d.stems, func(s string) bool { return leading[s] }) ||
			full && !d.glossary && !bt.sameSense(d, subject) {
			continue
		}
		prev, seen := byKey[d.key]
		if !seen {
			keys = append(keys, d.key)
		}
		if !seen || bt.units[d.unit].chunk.ChapterPath == chapter && bt.units[prev.unit].chunk.ChapterPath != chapter {
			byKey[d.key] = d
		}
	}
	out := make([]definitionSite, 0, len(keys))
	for _, k := range keys {
		out = append(out, byKey[k])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if own[out[i].key] != own[out[j].key] {
			return !own[out[i].key]
		}
		return out[i].info > out[j].info
	})
	return out[:min(len(out), maxDefinitions)]
}

// usesHead reports a selection that names a term of its own chapter by
// the term's last word alone, as a chapter does once it has defined it:
// "narrows the gap" after "the **reality gap** is ...", "before any
// randomization" after "**Domain randomization** trains ...". The last
// word must not be the book's everyday vocabulary.
func (ans *Answerer) usesHead(seq []string, d definitionSite, chapter string) bool {
	if chapter == "" || len(d.stems) < 2 || ans.text().units[d.unit].chunk.ChapterPath != chapter {
		return false
	}
	head := d.stems[len(d.stems)-1]
	return slices.Contains(seq, head) && !ans.everyday(head)
}

// sharedHeads are the last words that several terms of the chapter end
// with ("join" of "rolling joins" and "equi joins"): such a word alone
// names none of them, so a selection that uses it defines none.
func sharedHeads(bt *bookText, chapter string) map[string]bool {
	keysOf := map[string]string{}
	shared := map[string]bool{}
	for _, d := range bt.defs {
		if len(d.stems) < 2 || bt.units[d.unit].chunk.ChapterPath != chapter {
			continue
		}
		head := d.stems[len(d.stems)-1]
		if k, seen := keysOf[head]; seen && k != d.key {
			shared[head] = true
		}
		keysOf[head] = d.key
	}
	return shared
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

// sameSense reports a definition that uses, in its text or its heading,
// one of the subject words beside its own term's.
func (bt *bookText) sameSense(d definitionSite, subject map[string]bool) bool {
	u := bt.units[d.unit].u
	for s := range analysis.StemSet(u.text + " " + u.heading.Text) {
		if subject[s] && !slices.Contains(d.stems, s) {
			return true
		}
	}
	return false
}

// stemSequence is a text's stems in order, function words and the parts
// of compound words left out.
func stemSequence(text string) []string {
	var out []string
	for _, t := range analysis.Tokenize(text) {
		if !t.Part && !analysis.Stopwords[t.Word] {
			out = append(out, t.Stem)
		}
	}
	return out
}

// termSequence is a term's stems in order, each once.
func termSequence(term string) []string {
	var out []string
	for _, s := range stemSequence(strings.Split(term, "(")[0]) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func termKey(stems []string) string {
	s := slices.Clone(stems)
	sort.Strings(s)
	return strings.Join(s, " ")
}

// usesTerm reports whether a text's stems (seq) hold all of a term's
// within a span one word longer than the term: "series elastic
// actuators" uses the term "Series Elastic Actuator", a sentence that
// says "series" and, later, "actuator" does not.
func usesTerm(seq, term []string) bool {
	span := len(term) + 1
	for i, s := range seq {
		if s != term[0] && !slices.Contains(term, s) {
			continue
		}
		end := min(len(seq), i+span)
		all := true
		for _, t := range term {
			all = all && slices.Contains(seq[i:end], t)
		}
		if all {
			return true
		}
	}
	return false
}

var (
	// definingRest: what follows "X is" / "X are" in a definition: an
	// article, or a phrase that says what X is ("one of", "used to").
	definingRest = regexp.MustCompile(`(?i)^(?:a|an|the|one\s+of|any|defined\s+as|used\s+(?:to|for|in)|how|what|when|where|simply|essentially|basically)\b`)
	definingVerb = regexp.MustCompile(`(?:means|refers to|describes)\s$`)
	// glossaryTitle marks a chapter or section whose headings are terms.
	glossaryTitle = regexp.MustCompile(`(?i)\b(?:glossary|key terms|terminology)\b`)
	// termColumn and meaningColumn are the header cells of a table of
	// terms and what they mean ("| Term | Definition |", "| Specification
	// | What It Tells You |").
	termColumn    = regexp.MustCompile(`(?i)^(?:term|terms|concept|word|acronym|abbreviation|name|specification|parameter|property|metric|symbol|notation)$`)
	meaningColumn = regexp.MustCompile(`(?i)^(?:definition|meaning|what it (?:is|means|tells you|measures)|explanation)$|^description$`)
)

// notTerms are words a line opens with in bold that label what follows
// rather than name a term ("**Result**: ...", "**Lesson**: ...").
var notTerms = map[string]bool{
	"result": true, "results": true, "lesson": true, "lessons": true, "cause": true, "causes": true, "solution": true,
	"problem": true, "goal": true, "approach": true, "task": true, "tip": true, "warning": true, "important": true,
	"step": true, "answer": true, "question": true, "why": true, "how": true, "benefit": true, "benefits": true,
	"challenge": true, "challenges": true, "outcome": true, "use case": true, "pros": true, "cons": true,
	"advantages": true, "disadvantages": true, "strengths": true, "weaknesses": true, "input": true, "output": true,
	"fix": true, "issue": true, "symptom": true, "context": true, "reason": true, "impact": true, "key point": true,
	"key takeaway": true, "takeaway": true, "remember": true, "caution": true, "hint": true, "purpose": true,
	"operating principle": true, "trade-off": true, "tradeoff": true,
}

// definitionOf returns the term a unit defines, as the book writes it, or
// "". It reads the shapes definedTerm knows ("**Stall torque**: ...", "A
// topic is a ...", "... is called SLAM", a table row), but asks more of
// them, as a passage quoted as a definition must be one: "X is ..." goes
// on with an article or a phrase that says what X is ("Topics are
// useful" defines nothing); a term does not open with a function word
// ("No messages received: ...") or label what follows ("**Result**:
// ..."); a line says something after its term and asks nothing; a row
// is one of a table of terms and their meanings. In a glossary, the first
// sentence under a short heading defines the heading (first: the unit
// opens its section).
func definitionOf(p placedUnit, first bool) (term string, labelled bool) {
	u := p.u
	if u.asks || u.kind == code || strings.Contains(u.text, "?") {
		return "", false
	}
	if first && p.chunk != nil && u.kind == sentence && isGlossary(p.chunk, u.heading.Text) {
		return u.heading.Text, false
	}
	if u.defined == nil {
		return "", false
	}
	t := strings.TrimSpace(itemLine.ReplaceAllString(u.text, ""))
	switch plain := strings.NewReplacer("**", "", "__", "", "*", "", "`", "").Replace(t); {
	case u.kind == row:
		term = glossaryRow(u.text)
	case strings.HasSuffix(t, ":"):
	case leadingTerm.MatchString(t):
		m := leadingTerm.FindStringSubmatchIndex(t)
		verb := strings.TrimLeft(strings.TrimSpace(t[m[3]:m[1]]), "*_ ")
		r, _ := utf8.DecodeRuneInString(verb)
		labelled = verb == "" || strings.ContainsRune(":—–-,(", r)
		if len(strings.Fields(t[m[1]:])) >= 3 && (labelled || definingVerb.MatchString(verb+" ") || definingRest.MatchString(strings.TrimSpace(t[m[1]:]))) {
			term = t[m[2]:m[3]]
		}
	case definitionShape.MatchString(plain):
		m := definitionShape.FindStringSubmatch(plain)
		if len(strings.Fields(m[1])) <= 4 && (definingVerb.MatchString(m[0]) || definingRest.MatchString(plain[len(m[0]):])) {
			term = m[1]
		}
	case calledTerm.MatchString(plain):
		term = calledTerm.FindStringSubmatch(plain)[1]
		// calledTerm takes three words at most: a term set in bold or
		// italics is taken whole ("known as **Simultaneous Localization
		// and Mapping (SLAM)**").
		for _, m := range markedTerm.FindAllStringSubmatch(t, -1) {
			if marked := strings.Join(m[1:], ""); strings.HasPrefix(marked, term) {
				term = marked
				break
			}
		}
	}
	term = strings.TrimSpace(term)
	words := strings.Fields(strings.Split(term, "(")[0])
	n := len(words)
	for n > 0 && analysis.Stopwords[strings.ToLower(words[n-1])] {
		n--
	}
	if n < len(words) {
		term = strings.Join(words[:n], " ") // "Localization and" ends at "Localization"
	}
	low := strings.ToLower(strings.Join(words[:n], " "))
	if n == 0 || analysis.Stopwords[strings.ToLower(words[0])] || labelWords[low] || notTerms[low] {
		return "", false
	}
	return term, labelled
}

// glossaryRow returns the term of a row of a table of terms and their
// meanings (two columns, the header naming them so), or "".
func glossaryRow(text string) string {
	lines := strings.Split(text, "\n")
	if len(lines) < 3 {
		return ""
	}
	head := cells(lines[0])
	row := cells(lines[len(lines)-1])
	if len(head) != 2 || len(row) != 2 || len(strings.Fields(row[1])) < 3 {
		return ""
	}
	if !meaningColumn.MatchString(head[1]) || strings.EqualFold(head[1], "description") && !termColumn.MatchString(head[0]) {
		return ""
	}
	return strings.Trim(row[0], "*_`")
}

func cells(line string) []string {
	out := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// isGlossary reports a heading of a glossary: a short one (a term, not
// the glossary's own title) in a chapter or section titled as one.
func isGlossary(c *rag.Chunk, heading string) bool {
	if !glossaryTitle.MatchString(c.ChapterTitle+" "+c.ChapterPath+" "+c.SectionHeading) || glossaryTitle.MatchString(heading) {
		return false
	}
	n := len(strings.Fields(heading))
	return n >= 1 && n <= 6 && heading != c.ChapterTitle && len([]rune(heading)) > 1 && len(termSequence(heading)) > 0
}
