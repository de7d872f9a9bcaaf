package answer

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

// bookText is the whole book as one run of quotable units and their
// headings in book order, the overlap between adjacent chunks taken out,
// with the words of each as a reader sees them: where a selection sits,
// what comes before it, and which units define a term. It is built once
// (see buildSide), kept beside the index at ingest and read back whole
// (see bookside.go): flat slices and one string table, no map or
// pointer per unit.
type bookText struct {
	// strs are the distinct strings the text names by number, sorted:
	// the units' words, and the stems of its sections.
	strs  []string
	units []placedUnit
	// words are the units' words in order, as numbers in strs; unit i
	// holds words[units[i].from:units[i].to]. The positions of word w
	// are atPos[atFirst[w]:atFirst[w+1]].
	words          []int32
	atFirst, atPos []int32
	defs           []definitionSite
	// sections are the book's sections in order; the sections that use
	// stem s, in order, with how often each does, are
	// uses[useFirst[s]:useFirst[s+1]].
	sections []sectionSite
	useFirst []int32
	uses     []sectionUse
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

// placedUnit is a unit of the book, or a heading (isHeading): a selection
// copied from the page holds the headings it spans. It keeps of the unit
// what an explanation reads; the rest is worked out when the book is
// split.
type placedUnit struct {
	text, lead string // "" for a heading
	heading    rag.Heading
	chunk      *rag.Chunk
	ci         int32 // the chunk's place in the book
	kind       unitKind
	para       int
	// section is the unit's section, in bookText.sections: the heading
	// it sits under, in its chapter.
	section   int32
	from, to  int32 // its words, in bookText.words
	isHeading bool
}

// text returns the book's bookText, read or built on first use.
func (ans *Answerer) text() *bookText { return ans.bookSide().text }

// id is the number of s in strs, false when the text holds no such
// string.
func (bt *bookText) id(s string) (int32, bool) {
	i, ok := slices.BinarySearch(bt.strs, s)
	return int32(i), ok
}

// ids are words as numbers in strs, -1 for a word the book does not use.
func (bt *bookText) ids(words []string) []int32 {
	out := make([]int32, len(words))
	for i, w := range words {
		out[i] = -1
		if id, ok := bt.id(w); ok {
			out[i] = id
		}
	}
	return out
}

// wordsOf are unit i's words.
func (bt *bookText) wordsOf(i int) []int32 { return bt.words[bt.units[i].from:bt.units[i].to] }

// unitAt is the unit that holds word position pos.
func (bt *bookText) unitAt(pos int) int {
	return sort.Search(len(bt.units), func(i int) bool { return int(bt.units[i].to) > pos })
}

// at lists where word w (a number in strs) occurs.
func (bt *bookText) at(w int32) []int32 { return bt.atPos[bt.atFirst[w]:bt.atFirst[w+1]] }

// usesOf lists the sections that use a stem, in order.
func (bt *bookText) usesOf(stem string) []sectionUse {
	id, ok := bt.id(stem)
	if !ok {
		return nil
	}
	return bt.uses[bt.useFirst[id]:bt.useFirst[id+1]]
}

// index works out where each word occurs, from words: cheaper than
// keeping it.
func (bt *bookText) index() {
	bt.atFirst = make([]int32, len(bt.strs)+1)
	for _, w := range bt.words {
		bt.atFirst[w+1]++
	}
	for i := 1; i < len(bt.atFirst); i++ {
		bt.atFirst[i] += bt.atFirst[i-1]
	}
	bt.atPos = make([]int32, len(bt.words))
	next := slices.Clone(bt.atFirst[:len(bt.strs)])
	for pos, w := range bt.words {
		bt.atPos[next[w]] = int32(pos)
		next[w]++
	}
}

// textBuilder builds the bookText chunk by chunk, in book order, from
// each chunk's units: only the chunk before is kept (for the overlap), so
// the whole book is never split and held at once.
type textBuilder struct {
	ans *Answerer
	bt  *bookText
	// ids numbers the strings as they come; finish sorts them.
	ids  map[string]int32
	strs []string
	// uses are the sections that use each stem (by its number in ids).
	uses [][]sectionUse
	// section is the key of the section being built: chapter, heading
	// and anchor.
	section    string
	prev       []*unit
	last       *unit
	afterTitle bool // the unit before was a heading
}

func newTextBuilder(ans *Answerer) *textBuilder {
	return &textBuilder{ans: ans, bt: &bookText{}, ids: map[string]int32{}}
}

// intern numbers s.
func (b *textBuilder) intern(s string) int32 {
	id, ok := b.ids[s]
	if !ok {
		id = int32(len(b.strs))
		b.ids[s] = id
		b.strs = append(b.strs, s)
		b.uses = append(b.uses, nil)
	}
	return id
}

// addChunk places chunk c's units after those before, the overlap with
// the chunk before taken out.
func (b *textBuilder) addChunk(ci int, c *rag.Chunk, units []*unit) {
	for _, u := range units[overlap(b.prev, units):] {
		section := c.ChapterPath + "\x00" + u.heading.Text + "\x00" + u.heading.Anchor
		if len(b.bt.units) == 0 || b.section != section {
			b.section = section
			b.add(placedUnit{heading: u.heading, chunk: c, ci: int32(ci), isHeading: true}, nil, plainWords(u.heading.Text), true)
		}
		b.add(placedUnit{text: u.text, lead: u.lead, heading: u.heading, chunk: c, ci: int32(ci), kind: u.kind, para: u.para}, u, unitWords(u, b.last), false)
		b.last = u
	}
	b.prev = units
}

// add appends p (u is its unit, nil for a heading) with its words; a new
// section opens with it when opens is set.
func (b *textBuilder) add(p placedUnit, u *unit, words []string, opens bool) {
	bt := b.bt
	i := len(bt.units)
	if opens {
		bt.sections = append(bt.sections, sectionSite{first: -1, assessment: analysis.AssessmentTitle(p.chunk.ChapterTitle+" "+p.chunk.ChapterPath) || analysis.AssessmentTitle(p.heading.Text)})
	}
	k := len(bt.sections) - 1
	p.section = int32(k)
	p.from = int32(len(bt.words))
	for _, w := range words {
		bt.words = append(bt.words, b.intern(w))
	}
	p.to = int32(len(bt.words))
	bt.units = append(bt.units, p)
	s := &bt.sections[k]
	text := p.heading.Text
	if u != nil {
		text = u.text
		if s.first < 0 {
			s.first = i
			s.assessment = s.assessment || u.goal || u.summary || u.overview
		}
	}
	for _, t := range analysis.Tokenize(text) {
		if analysis.Stopwords[t.Word] {
			continue
		}
		s.words++
		id := b.intern(t.Stem)
		uses := b.uses[id]
		if n := len(uses); n > 0 && uses[n-1].k == int32(k) {
			uses[n-1].n++
			continue
		}
		b.uses[id] = append(uses, sectionUse{k: int32(k), n: 1})
	}
	if u != nil {
		b.addDefinition(i, u, p.chunk, b.afterTitle)
	}
	b.afterTitle = u == nil
}

// addDefinition records the term unit i defines, if any (first: the
// unit opens its section).
func (b *textBuilder) addDefinition(i int, u *unit, c *rag.Chunk, first bool) {
	if analysis.AssessmentTitle(c.ChapterTitle+" "+c.ChapterPath) || analysis.AssessmentTitle(u.heading.Text) {
		return // a quiz's answer, not the book's definition
	}
	term, labelled := definitionOf(u, c, first)
	stems := termSequence(term)
	if len(stems) == 0 {
		return
	}
	d := definitionSite{unit: i, term: term, stems: stems, key: termKey(stems), glossary: first && term == u.heading.Text, labelled: labelled}
	everyday := true
	for _, s := range stems {
		d.info += b.ans.book.IDF(s)
		everyday = everyday && b.ans.everyday(s)
	}
	if !everyday {
		b.bt.defs = append(b.bt.defs, d)
	}
}

// finish sorts the strings and renumbers the words and the stems' uses
// by them.
func (b *textBuilder) finish() *bookText {
	bt := b.bt
	order := make([]int32, len(b.strs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return strings.Compare(b.strs[x], b.strs[y]) })
	renumber := make([]int32, len(order))
	bt.strs = make([]string, len(order))
	for to, from := range order {
		renumber[from] = int32(to)
		bt.strs[to] = b.strs[from]
	}
	for i, w := range bt.words {
		bt.words[i] = renumber[w]
	}
	bt.useFirst = make([]int32, len(bt.strs)+1)
	for to, from := range order {
		bt.useFirst[to+1] = bt.useFirst[to] + int32(len(b.uses[from]))
		bt.uses = append(bt.uses, b.uses[from]...)
	}
	bt.index()
	return bt
}

// maxOverlapUnits bounds the overlap looked for: the chunker repeats a
// few sentences or lines, never a dozen units.
const maxOverlapUnits = 12

// overlap counts the units a chunk starts with that end the chunk before
// it: the chunker repeats the last sentences or lines of a chunk at the
// start of the next.
func overlap(prev, units []*unit) int {
	for n := min(len(prev), len(units), maxOverlapUnits); n > 0; n-- {
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
	// fenceTitle is an opening fence's caption, title="a.py", which the
	// page shows above the code.
	fenceTitle = regexp.MustCompile(`(?:^|\s)title="([^"]*)"`)
)

// plainWords reduces Markdown, or text copied from the rendered page, to
// its lower-cased words: the marks, a link's target, an image, a heading's
// anchor, a code fence's line (but for its caption, which the page
// shows) and, outside code, a tag and a list item's marker or number are
// not what a reader sees (or copies). Text and its rendering give the
// same words.
func plainWords(text string) []string {
	var b strings.Builder
	code := false
	for _, line := range strings.Split(text, "\n") {
		if fenceLine.MatchString(line) {
			if m := fenceTitle.FindStringSubmatch(line); m != nil && !code {
				b.WriteString(m[1] + "\n")
			}
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
func containsWords[W comparable](whole, part []W) bool {
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

// passage is unit i as a quoted passage, with its chunk as the source. It
// was found by looking the selection up, not retrieved: it carries no
// retrieval score.
func (bt *bookText) passage(i int) rag.Passage {
	p := bt.units[i]
	return rag.Passage{Text: p.text, Heading: p.heading, Chunk: &rag.ScoredChunk{Chunk: *p.chunk}, Paragraph: p.para}
}

// sectionLink is section k as a link: its heading, with the chunk that
// holds its first unit as the source. Nothing of it is quoted.
func (bt *bookText) sectionLink(k int) rag.Passage {
	p := bt.units[bt.sections[k].first]
	return rag.Passage{Heading: p.heading, Chunk: &rag.ScoredChunk{Chunk: *p.chunk}}
}
