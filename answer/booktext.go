package answer

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

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

// text returns the book's bookText, built on first use.
func (ans *Answerer) text() *bookText {
	ans.textOnce.Do(func() { ans.bookText = ans.buildText() })
	return ans.bookText
}

func (ans *Answerer) buildText() *bookText {
	ans.splitAll()
	bt := &bookText{at: map[string][]int32{}}
	chunks := ans.book.Chunks()
	var prev []*unit
	var last *unit
	for ci := range chunks {
		c := &chunks[ci]
		units, _ := ans.chunkUnits(c.ID)
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
