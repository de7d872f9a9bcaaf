package answer

import (
	"maps"
	"path"
	"regexp"
	"strings"
	"unicode"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

// The unit stage: a chunk cut into the units an answer quotes, each
// with what every later stage asks of it, worked out once when the
// answerer is built (see New) and copied per search (see unitsOf).

// unit is the smallest thing an answer quotes: a sentence, a list item, a
// table row (with its header) or a whole code block.
type unit struct {
	text    string
	kind    unitKind
	heading rag.Heading
	// lead is the line that introduces a list or code block ("Types:",
	// "Create the package:"); its words are context for the unit.
	lead  string
	terms map[string]bool
	// words and headingWords are the unit's text and its heading as
	// phraseText writes them, spaces around, for the question's phrase.
	words, headingWords string
	ctx                 unitContext     // stems from heading, section, lead and text, with credit
	nums                map[string]bool // the numbers the unit states
	// subject is what the unit defines, when it reads as a definition.
	subject map[string]bool
	// defined is the term the unit defines in so many words, nil when it
	// defines none (see definedTerm).
	defined map[string]bool
	// overview marks units of a module's index page, which restates what
	// the chapters say.
	overview bool
	// glossary marks units of a glossary, whose headings are its terms.
	glossary bool
	// goal and summary classify the unit's heading, and lines counts the
	// unit's line breaks: fixed per unit, so worked out once when it is cut.
	goal, summary bool
	// asks marks a question put to the reader (see asksReader).
	asks bool
	// points marks a link that only points elsewhere (see pointsOnly):
	// quoted with its section, never a candidate.
	points bool
	lines  int
	// para numbers the paragraph a sentence or label comes from, from 1.
	para int
	// up is how many units back the list item that holds this unit
	// lies (its text indented under the item: a sub-item, a paragraph,
	// a code block), 0 when no item holds it. An item is quoted with
	// what it holds.
	up int
	// idents are the compound identifiers the unit uses
	// (create_publisher, ImuPublisher).
	idents []identifier
	chunk  int // index into the chunks being searched
	pos    int // position in book order within the search
	score  float64
}

type unitKind int

const (
	sentence unitKind = iota
	item
	row
	code
	label // a short line ending in ':' that introduces what follows
)

// sectionKey names the section a unit belongs to within one search: its
// chunk and its most specific heading.
type sectionKey struct {
	chunk   int
	heading string
}

func keyOf(u *unit) sectionKey { return sectionKey{u.chunk, u.heading.Text} }

var (
	headingLine  = regexp.MustCompile(`^(#{2,6})\s+(.*?)\s*(\{#[^}]*\})?\s*$`)
	itemLine     = regexp.MustCompile(`^\s*([-*+]|\d+[.)])\s+`)
	chunkHeader  = regexp.MustCompile(`^\[(Module|Chapter|Section): .*\]$`)
	sentenceEnd  = regexp.MustCompile(`([.!?])\s+([A-Z*\x60"(])`)
	tableDivider = regexp.MustCompile(`^\s*\|?\s*:?-{2,}`)
)

// splitUnits cuts a chunk's Markdown body into quotable units. It walks
// lines rather than parsing Markdown again: the chunker already normalised
// the body to headings, paragraphs, list items, tables and fenced code.
// The chunk's section heading and its chapter's title are context for
// every unit: a passage is read as part of its section and chapter ("the
// joint types" in the URDF chapter are URDF's).
func splitUnits(c rag.Chunk) []*unit {
	return splitUnitsWith(c.Text, c.Headings, c.SectionHeading+" "+c.ChapterTitle+" "+c.ModuleTitle, c.SectionHeading, c.Anchor, chunkCredit)
}

// splitUnitsWith is splitUnits for any text (a reader's selection has no
// chunk): context's words get sectionCredit, the rest of the text's
// contextCredit.
func splitUnitsWith(text string, headings []rag.Heading, context, section, anchor string, contextCredit float64) []*unit {
	var units []*unit
	cur := rag.Heading{Level: 2, Text: section, Anchor: anchor}
	lead := ""
	var para []string
	nPara := 0
	all := analysis.StemSet(text)
	sectionTerms := analysis.StemSet(context)
	var near map[string]source
	nearHeading := ""
	// open lists the list items that hold the lines to come: their
	// indentation and unit index, outermost first.
	type openItem struct{ indent, at int }
	var open []openItem
	// within closes the items a line at this indentation is not
	// indented under, and returns the innermost that holds it.
	within := func(indent int) int {
		for len(open) > 0 && open[len(open)-1].indent >= indent {
			open = open[:len(open)-1]
		}
		if len(open) == 0 {
			return -1
		}
		return open[len(open)-1].at
	}
	holder := -1 // the item holding the paragraph being gathered
	add := func(u *unit, owner int) {
		if owner >= 0 {
			u.up = len(units) - owner
		}
		u.heading = cur
		u.terms = analysis.StemSet(u.text)
		u.words, u.headingWords = " "+phraseText(u.text)+" ", " "+phraseText(u.heading.Text)+" "
		u.nums = numbersIn(u.text)
		u.subject = subjectOf(u.text, cur.Text)
		if t := entryTerm(u); t != "" {
			u.subject = termStems(t)
		}
		u.defined = definedTerm(u)
		u.idents = identifiersIn(u.text)
		u.goal = goalHeading(cur.Text)
		u.summary = summaryHeading(cur.Text)
		u.asks = asksReader(u, cur.Text)
		u.points = pointsOnly(u, cur.Text)
		u.lines = strings.Count(u.text, "\n")
		// The units under one heading share its credits; a unit with a
		// lead gets a copy with the lead's words added.
		if near == nil || nearHeading != cur.Text {
			near, nearHeading = map[string]source{}, cur.Text
			for s := range sectionTerms {
				near[s] = fromSection
			}
			for s := range analysis.StemSet(cur.Text) {
				near[s] = fromHeading
			}
		}
		u.ctx = unitContext{all: all, allCredit: contextCredit, near: near}
		if u.lead != "" {
			u.ctx.near = maps.Clone(near)
			for s := range analysis.StemSet(u.lead) {
				if u.ctx.near[s] < fromLead {
					u.ctx.near[s] = fromLead
				}
			}
		}
		units = append(units, u)
	}
	flushPara := func() {
		if len(para) == 0 {
			return
		}
		owner := holder
		if entries := definitionEntries(para); entries != nil {
			// A definition list's entries ("Term" then ": meaning") are
			// quoted as written, one paragraph each.
			para = nil
			for _, e := range entries {
				nPara++
				add(&unit{text: e, kind: sentence, para: nPara}, owner)
			}
			return
		}
		p := strings.Join(para, " ")
		para = nil
		nPara++
		for _, s := range splitSentences(p) {
			k := sentence
			if strings.HasSuffix(s, ":") && len(s) < maxLabelChars {
				k = label
			}
			add(&unit{text: s, kind: k, para: nPara}, owner)
			if strings.HasSuffix(s, ":") {
				lead = s
			}
		}
	}
	lines := strings.Split(text, "\n")
	// A text that opens inside a code block (a chunk whose overlap began
	// in the previous chunk's code) quotes none of that code's tail: its
	// first fence closes the block, it opens none.
	inCode := opensInCode(lines)
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		if inCode && !headingLine.MatchString(trimmed) {
			inCode = !isFence(trimmed)
			continue
		}
		switch {
		case chunkHeader.MatchString(trimmed):
			continue
		case isFence(trimmed):
			flushPara()
			end := fenceEnd(lines, i, func(l string) string { return l })
			add(&unit{text: dedent(lines[i:end+1], line[:indent]), kind: code, lead: lead}, within(indent))
			i = end
		case strings.HasPrefix(trimmed, ">") && isFence(strings.TrimSpace(strings.TrimLeft(trimmed, ">"))):
			// Code in a blockquote (a "> NOTE:" with commands) is a
			// block of its own, its lines as written.
			flushPara()
			end := fenceEnd(lines, i, unquote)
			block := make([]string, 0, end-i+1)
			for _, l := range lines[i : end+1] {
				block = append(block, unquote(l))
			}
			add(&unit{text: strings.Join(block, "\n"), kind: code, lead: lead}, within(indent))
			i = end
		case headingLine.MatchString(trimmed):
			flushPara()
			m := headingLine.FindStringSubmatch(trimmed)
			cur = headingFor(m[2], len(m[1]), headings)
			lead = ""
			open = open[:0]
		case trimmed == "":
			flushPara()
		case itemLine.MatchString(line):
			flushPara()
			t := trimmed
			// An item's text runs on over its indented lines, up to the
			// code it may hold, which keeps its own lines.
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  ") && !itemLine.MatchString(lines[i+1]) && strings.TrimSpace(lines[i+1]) != "" && !isFence(strings.TrimSpace(lines[i+1])) {
				i++
				t += " " + strings.TrimSpace(lines[i])
			}
			owner := within(indent)
			open = append(open, openItem{indent, len(units)})
			add(&unit{text: t, kind: item, lead: lead}, owner)
		case strings.HasPrefix(trimmed, "|"):
			flushPara()
			var header string
			if i+1 < len(lines) && tableDivider.MatchString(lines[i+1]) {
				header = trimmed + "\n" + strings.TrimSpace(lines[i+1])
				i += 2
			}
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
				r := strings.TrimSpace(lines[i])
				u := &unit{text: r, kind: row, lead: lead}
				if header != "" {
					u.text = header + "\n" + r
					u.lead = strings.TrimSpace(lead + " " + strings.SplitN(header, "\n", 2)[0])
				}
				add(u, within(indent))
			}
			i--
		case strings.HasPrefix(trimmed, ">"):
			if len(para) == 0 {
				holder = within(indent)
			}
			para = append(para, strings.TrimSpace(strings.TrimLeft(trimmed, ">")))
		default:
			if len(para) == 0 {
				holder = within(indent)
			}
			para = append(para, trimmed)
		}
	}
	flushPara()
	return units
}

// fenceEnd is the line that closes the code block opening at line i: a
// run of the opener's fence character at least as long, and nothing
// else (a ````md block shows ``` fences inside it). A block that no such
// line closes ends, as knitr ends a chunk, at the first line that opens
// with three of its fence characters (R Markdown pages open chunks with
// ````{r} and close them with ```), else at the last line. read gives a
// line's text (a blockquote's without its marker); a quoted block also
// ends where the quote does.
func fenceEnd(lines []string, i int, read func(string) string) int {
	open := strings.TrimSpace(read(lines[i]))
	n := len(open) - len(strings.TrimLeft(open, open[:1]))
	fence := open[:n]
	quoted := strings.HasPrefix(strings.TrimSpace(lines[i]), ">")
	end, loose := len(lines)-1, -1
	for j := i + 1; j < len(lines); j++ {
		if quoted && !strings.HasPrefix(strings.TrimSpace(lines[j]), ">") {
			end = j - 1
			break
		}
		t := strings.TrimSpace(read(lines[j]))
		if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
			return j
		}
		if loose < 0 && strings.HasPrefix(t, fence[:3]) {
			loose = j
		}
	}
	if loose >= 0 {
		return loose
	}
	return end
}

// unquote is a blockquote's line without its marker and the space after.
func unquote(line string) string {
	t := strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(t, ">") {
		return line
	}
	return strings.TrimPrefix(t[1:], " ")
}

// isFence reports a line (trimmed) that opens or closes fenced code.
func isFence(trimmed string) bool {
	return strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")
}

// opensInCode reports a text that starts inside a code block: it holds
// an odd number of fence lines and the first is a bare one, which closes
// a block rather than opening one ("```python" only opens).
func opensInCode(lines []string) bool {
	n, first := 0, ""
	for _, l := range lines {
		if t := strings.TrimSpace(l); isFence(t) {
			if n == 0 {
				first = t
			}
			n++
		}
	}
	return n%2 == 1 && (first == "```" || first == "~~~")
}

// dedent removes from a code block's lines the indentation of its
// opening fence (code fenced inside a list item), so that the block
// reads, and renders, as a block of its own with its lines as written.
func dedent(lines []string, indent string) string {
	if indent == "" {
		return strings.Join(lines, "\n")
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimPrefix(l, indent)
	}
	return strings.Join(out, "\n")
}

// headingFor finds a body heading among the chunk's headings, for its
// anchor; a selection has none, so it gets the text alone.
func headingFor(text string, level int, headings []rag.Heading) rag.Heading {
	for _, h := range headings {
		if strings.EqualFold(h.Text, text) {
			return h
		}
	}
	return rag.Heading{Level: level, Text: text}
}

// splitSentences splits a paragraph at sentence ends followed by a
// capital, a quote or inline code.
func splitSentences(p string) []string {
	var out []string
	start := 0
	for _, m := range sentenceEnd.FindAllStringSubmatchIndex(p, -1) {
		end := m[3]
		s := strings.TrimSpace(p[start:end])
		if isAbbreviation(s) {
			continue
		}
		if s != "" {
			out = append(out, s)
		}
		start = m[4]
	}
	if s := strings.TrimSpace(p[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

func isAbbreviation(s string) bool {
	low := strings.ToLower(s)
	for _, a := range []string{"e.g.", "i.e.", "etc.", "vs.", "approx.", "fig.", "no."} {
		if strings.HasSuffix(low, a) {
			return true
		}
	}
	return false
}

// maxLabelChars: a sentence ending in ':' shorter than this is a label
// that introduces what follows ("Types:", "Create the package:"); a longer
// one states something itself.
const maxLabelChars = 80

// minIdentifierChars: a shorter compound ("to_x", "xY") is too common a
// spelling to show the API a question asks about.
const minIdentifierChars = 5

// identifier is a compound identifier of a text (snake_case, camelCase):
// its stem as a whole and the stems of its parts.
type identifier struct {
	whole string
	parts []string
}

// identifiersIn lists the compound identifiers of a text (a dotted name
// is several identifiers).
func identifiersIn(text string) []identifier {
	var out []identifier
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
	}) {
		f = strings.Trim(f, "_")
		if seen[f] || len(f) < minIdentifierChars {
			continue
		}
		seen[f] = true
		var parts []string
		if strings.Contains(f, "_") {
			parts = strings.FieldsFunc(strings.ToLower(f), func(r rune) bool { return r == '_' })
		} else {
			parts = analysis.CamelParts([]rune(f))
		}
		if len(parts) < 2 {
			continue
		}
		stems := make([]string, len(parts))
		for i, p := range parts {
			stems[i] = analysis.Stem(p)
		}
		out = append(out, identifier{whole: analysis.Stem(strings.ToLower(f)), parts: stems})
	}
	return out
}

// source is where a unit finds a question word it does not state
// itself, from the farthest to the nearest: elsewhere in its text (the
// chunk, or the rest of a selection), its section heading or chapter
// title, the line that introduces it, its own heading.
type source uint8

const (
	fromNowhere source = iota
	fromText
	fromSection
	fromLead
	fromHeading
)

// unitContext tells where around a unit a stem it does not hold
// itself is found. The text's stems are one set shared by all its units,
// so a chunk of n units keeps its vocabulary once, not n times.
type unitContext struct {
	all map[string]bool
	// allCredit is the selection rule's credit for a word found only
	// elsewhere in the text (see credit).
	allCredit float64
	near      map[string]source
}

// source is where around the unit stem s is found.
func (c unitContext) source(s string) source {
	if v, ok := c.near[s]; ok {
		return v
	}
	if c.all[s] {
		return fromText
	}
	return fromNowhere
}

// credit is what a stem found around a unit is worth to the selection's
// sufficiency rule (selectionAnswers), 0 when nothing around it holds s.
// The answerer's model learns its own weights for each source instead.
func (c unitContext) credit(s string) float64 {
	switch c.source(s) {
	case fromHeading:
		return headingCredit
	case fromLead:
		return leadCredit
	case fromSection:
		return sectionCredit
	case fromText:
		return c.allCredit
	}
	return 0
}

// unitsOf returns fresh copies of the chunks' units, numbered for one
// search. A chunk of the book was split when the answerer was built;
// another (a caller's own) is split now.
func (ans *Answerer) unitsOf(chunks []rag.ScoredChunk) []*unit {
	var units []*unit
	for ci := range chunks {
		c := &chunks[ci]
		cached, ok := ans.chunkUnits(c.ID)
		if i, _ := ans.book.Position(c.ID); !ok || ans.book.Chunks()[i].Text != c.Text {
			cached = splitUnits(c.Chunk)
		}
		overview := path.Base(c.ChapterPath) == "index" && strings.Contains(c.ChapterPath, "/")
		glossary := glossaryTitle.MatchString(c.ChapterTitle + " " + c.ChapterPath)
		quiz := analysis.AssessmentTitle(c.ChapterTitle)
		for _, u := range cached {
			cp := *u
			cp.chunk = ci
			cp.overview = overview
			cp.glossary = glossary
			cp.asks = cp.asks || quiz
			cp.pos = len(units)
			units = append(units, &cp)
		}
	}
	return units
}

// subjectOf is what a unit defines: a leading bold term ("**Stall
// torque**: ..."), the subject of a sentence shaped "X is ..." or "X (...)
// is ...", or else the unit's heading; as stems.
func subjectOf(text, heading string) map[string]bool {
	t := strings.TrimSpace(itemLine.ReplaceAllString(text, ""))
	var subj string
	if strings.HasPrefix(t, "**") {
		if end := strings.Index(t[2:], "**"); end > 0 {
			subj = t[2 : 2+end]
		}
	}
	if labelWords[strings.ToLower(strings.Trim(subj, " :"))] {
		// "**Definition**: ..." labels its line; the heading names it.
		return analysis.StemSet(strings.TrimSpace(strings.Split(heading, "(")[0]))
	}
	if subj == "" {
		if m := definitionShape.FindStringSubmatch(strings.ReplaceAll(t, "**", "")); m != nil {
			subj = m[1]
		}
	}
	if subj == "" {
		subj = heading
	}
	return analysis.StemSet(strings.TrimSpace(strings.Split(subj, "(")[0]))
}

// definesSubject reports a unit that names what it defines with all of
// the subject's words among the question's (see subjectOf).
func definesSubject(u *unit, qstems map[string]bool) bool {
	if len(u.subject) == 0 {
		return false
	}
	for s := range u.subject {
		if !qstems[s] {
			return false
		}
	}
	return true
}

// labelWords are bold line labels that say what kind of line follows,
// not what it is about.
var labelWords = map[string]bool{
	"definition": true, "meaning": true, "example": true, "examples": true, "note": true,
	"key idea": true, "key insight": true, "summary": true, "description": true, "in short": true,
	"solution": true, "tip": true, "warning": true, "important": true, "goal": true, "tools": true,
	"result": true, "output": true, "answer": true, "remember": true, "caution": true, "hint": true,
	"problem": true, "task": true, "challenge": true, "purpose": true, "why": true, "how": true,
	"features": true, "benefits": true, "advantages": true, "limitations": true, "use case": true,
}

// definitionShape matches "A topic is ...", "SDF (Simulation Description
// Format) is ...", "Drift refers to ...": up to five words, then the verb.
var definitionShape = regexp.MustCompile(`^(?:(?:A|An|The)\s+)?((?:[\w./-]+\s+){0,4}[\w./-]+)(?:\s+\([^)]*\))?\s+(?:is|are|means|refers to|describes)\s`)

// asksReader reports a unit that puts a question to the reader rather
// than stating something: a sentence ending in a question mark, a
// multiple-choice option, or anything under a heading (or in a chapter,
// see unitsOf) that marks a quiz, an exercise or a prompt for the reader.
func asksReader(u *unit, heading string) bool {
	t := strings.TrimSpace(strings.ReplaceAll(u.text, "**", ""))
	// A table row ending in a question mark is a cell ("Must every
	// message arrive?") that the row's other cells answer.
	if u.kind != row && (strings.HasSuffix(t, "?") || choiceLine.MatchString(t)) {
		return true
	}
	return analysis.AssessmentTitle(heading)
}

// choiceLine matches a multiple-choice option: "B) ...", "- c. ...",
// "3. D) ...".
var choiceLine = regexp.MustCompile(`^(?:[-*+]\s+)?(?:\d+[.)]\s+)?[A-Da-d][).]\s`)

// goalHeading reports a section that points elsewhere rather than
// teaching: what a chapter will teach (objectives, goals), what it needs
// first (prerequisites) or what comes after it (next steps).
func goalHeading(h string) bool {
	h = strings.ToLower(h)
	for _, w := range []string{"learning objective", "learning outcome", "learning goal", "chapter goal", "module goal", "lesson goal",
		"you will learn", "you'll learn", "objectives", "prerequisite", "next step", "what's next", "what’s next"} {
		if strings.Contains(h, w) {
			return true
		}
	}
	return false
}

func summaryHeading(h string) bool {
	h = strings.ToLower(h)
	for _, w := range []string{"summary", "key takeaway", "overview", "key concepts", "introduction", "recap"} {
		if strings.Contains(h, w) {
			return true
		}
	}
	return false
}
