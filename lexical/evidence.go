package lexical

import (
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/textbook-rag/rag"
)

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
	ctx   unitContext     // stems from heading, section, lead and text, with credit
	nums  map[string]bool // the numbers the unit states
	// subject is what the unit defines, when it reads as a definition.
	subject map[string]bool
	// overview marks units of a module's index page, which restates what
	// the chapters say.
	overview bool
	// goal and summary classify the unit's heading, and lines counts the
	// unit's line breaks: fixed per unit, so worked out once when it is cut.
	goal, summary bool
	// asks marks a question put to the reader (see asksReader).
	asks  bool
	lines int
	// para numbers the paragraph a sentence or label comes from, from 1.
	para int
	// idents are the stems of the parts of each compound identifier the
	// unit uses (create_publisher, ImuPublisher).
	idents [][]string
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

// Evidence thresholds. A unit must hold most of the question's
// information, counting what its heading and lead-in say, to be quoted.
const (
	// minWindow: the best window (up to three consecutive units of one
	// section) must hold this share of the question's information,
	// counting what its headings and lead-in say.
	minWindow = 0.45
	// minSelected is the same bar for a reader's selection, which must
	// also state two of the question's words itself: "not merely a shared
	// word".
	minSelected = 0.45

	headingCredit = 0.7
	sectionCredit = 0.5
	chunkCredit   = 0.25
	// selectionCredit is chunkCredit for a reader's selection.
	selectionCredit = 0.5
	leadCredit      = 0.7

	// secondRatio: another section is quoted too when its best window
	// ranks within this share of the best.
	secondRatio = 0.9
	// headingBonus weighs, in ranking passages, the share of the
	// question's information named by the passage's own heading.
	headingBonus = 0.2
	// listBonus ranks up a list or table for a question that asks for
	// several things of a kind.
	listBonus = 0.1
	// apiBonus ranks up a passage using an identifier made of the
	// question's words.
	apiBonus = 0.2
	// maxUnits bounds how far after a lead-in line ("Create the
	// package:") the list or code block it introduces may reach.
	maxUnits = 8
)

// Evidence returns the passages of the chunks that answer the question,
// in book order, or nil when no part of them does. It never returns text
// that is not in the chunks.
func (ix *Index) Evidence(question string, chunks []rag.ScoredChunk) []rag.Passage {
	q := focus(ix.analyze(question), question)
	if len(q.terms) == 0 {
		return nil
	}
	units := ix.unitsOf(chunks)
	sel := ix.selectUnits(q, question, units)
	// Quote in book order.
	sort.SliceStable(sel, func(a, b int) bool {
		pa, pb := ix.pos[chunks[sel[a].chunk].ID], ix.pos[chunks[sel[b].chunk].ID]
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
// an answer often takes two or three sentences to state.
type window struct {
	from, to int // units[from:to]
	score    float64
	rank     float64
}

const maxWindow = 3

// sectionKey names the section a unit belongs to within one search: its
// chunk and its most specific heading.
type sectionKey struct {
	chunk   int
	heading string
}

func keyOf(u *unit) sectionKey { return sectionKey{u.chunk, u.heading.Text} }

// reading is what selectUnits learns of the question once, before it
// looks at any unit.
type reading struct {
	q          query
	sl         slots
	qnums      map[string]bool
	qstems     map[string]bool
	wantsCode  bool
	want       *regexp.Regexp // the answer type a passage must state, or nil
	definition bool
	wantsList  bool
}

func readQuestion(q query, question string) reading {
	r := reading{q: q, sl: newSlots(&q), qnums: numbersIn(question), qstems: map[string]bool{},
		wantsCode: asksForCode(question), want: answerTypeOf(question), definition: isDefinition(question),
		wantsList: asksForList(question)}
	for _, t := range q.terms {
		r.qstems[t.stem] = true
	}
	return r
}

// unitFacts are the per-unit signals the window search ranks by.
type unitFacts struct {
	match     [][]float64 // match[i][k]: how unit i holds stem slot k
	headShare []float64   // the question's information named by the unit's heading
	namesAPI  []bool      // uses an identifier spelled from the question's words
	defines   []bool      // defines the question's subject
	typed     []bool      // states the answer type the question wants
}

// selectUnits chooses what to quote from units for a question, in three
// phases: score every unit, find the best window (and a close second in
// another section), then quote the sections those windows lie in.
func (ix *Index) selectUnits(q query, question string, units []*unit) []*unit {
	r := readQuestion(q, question)
	windows := r.bestWindows(units, r.scoreUnits(units), minWindow, false)
	if len(windows) == 0 {
		return nil
	}
	sel := quoteSections(units, windows)
	if r.wantsList {
		sel = withSubsections(units, sel, windows)
	}
	return sel
}

// selectionAnswers reports whether a window of a reader's selection holds
// the answer: most of the question's information and two of its words.
func selectionAnswers(q query, question string, units []*unit) bool {
	r := readQuestion(q, question)
	return len(r.bestWindows(units, r.scoreUnits(units), minSelected, true)) > 0
}

// scoreUnits gives every unit its own score and works out the signals the
// window search needs.
func (r reading) scoreUnits(units []*unit) unitFacts {
	sl := r.sl
	f := unitFacts{
		match:     make([][]float64, len(units)),
		headShare: make([]float64, len(units)),
		namesAPI:  make([]bool, len(units)),
		defines:   make([]bool, len(units)),
		typed:     make([]bool, len(units)),
	}
	flat := make([]float64, len(units)*len(sl.stems))
	for i, u := range units {
		// A window holds a stem as well as its best unit does: 1 in the
		// unit's text, else the credit of its context.
		m := flat[i*len(sl.stems) : (i+1)*len(sl.stems)]
		for k, s := range sl.stems {
			if u.terms[s] {
				m[k] = 1
			} else {
				m[k] = u.ctx.credit(s)
			}
		}
		f.match[i] = m
		u.score = r.q.coverageOf(sl, m) * unitPrior(u, r.wantsCode)
		// A unit under a heading that names the question's words is where
		// the book talks about them, more than a passage that mentions
		// them in passing.
		for _, t := range r.q.terms {
			if u.ctx.credit(t.stem) >= headingCredit {
				f.headShare[i] += t.weight / r.q.total
			}
		}
		// An identifier spelled out of the question's own words ("create
		// a publisher" -> create_publisher) shows the API asked about.
		for _, parts := range u.idents {
			all := len(parts) >= 2
			for _, p := range parts {
				all = all && r.qstems[p]
			}
			if all {
				f.namesAPI[i] = true
				break
			}
		}
		f.defines[i] = r.definition && definesSubject(u, r.qstems)
		f.typed[i] = r.want != nil && r.want.MatchString(u.text)
	}
	return f
}

// Window ranking: what lifts a window above its coverage.
const (
	// stepPenalty: each further unit of a window must earn its place.
	stepPenalty = 0.04
	// noNumberFactor: a "how many/how much" window that states no new
	// number is unlikely to answer.
	noNumberFactor = 0.8
	// definitionBonus ranks up the sentence that defines the subject of a
	// "what is X" question.
	definitionBonus = 0.3
)

// bestWindows finds the best window of the units and, when another
// section's best comes close, that one too: an answer is often split
// between a rule and its table, or a summary and its section.
func (r reading) bestWindows(units []*unit, f unitFacts, minScore float64, selection bool) []window {
	var best *window
	bySection := map[sectionKey]window{}
	win := make([]float64, len(r.sl.stems))
	for i := range units {
		hasNum, hasType := false, false
		prior := 1.0
		copy(win, f.match[i])
		for j := i; j < len(units) && j < i+maxWindow; j++ {
			u := units[j]
			if keyOf(u) != keyOf(units[i]) {
				break
			}
			for k, x := range f.match[j] {
				win[k] = max(win[k], x)
			}
			hasNum = hasNum || hasNewNumber(u.nums, r.qnums)
			hasType = hasType || f.typed[j]
			prior = min(prior, unitPrior(u, r.wantsCode))
			sc := r.q.coverageOf(r.sl, win) * prior * (1 - stepPenalty*float64(j-i))
			if r.q.wantsNumber && !hasNum {
				sc *= noNumberFactor
			}
			// A unit states the answer type on its own or not at all.
			if r.want != nil && !hasType {
				continue
			}
			rank := sc + headingBonus*f.headShare[i]
			if f.defines[i] {
				rank += definitionBonus
			}
			if slices.Contains(f.namesAPI[i:j+1], true) {
				rank += apiBonus
			}
			if r.wantsList && (u.kind == item || u.kind == row) {
				rank += listBonus
			}
			// Context credit stays below 1, so 1 means the text has it. A
			// selection must state two of the question's words itself.
			shared := 0
			for _, k := range r.sl.term {
				if win[k] == 1 {
					shared++
				}
			}
			if sc < minScore || (selection && shared < min(2, len(r.q.terms))) {
				continue
			}
			w := window{from: i, to: j + 1, score: sc, rank: rank}
			if best == nil || rank > best.rank {
				best = &w
			}
			if k := keyOf(units[i]); rank > bySection[k].rank {
				bySection[k] = w
			}
		}
	}
	if best == nil {
		return nil
	}
	windows := []window{*best}
	var second *window
	for k, w := range bySection {
		if k == keyOf(units[best.from]) || w.rank < secondRatio*best.rank || w.score < minScore {
			continue
		}
		if second == nil || w.rank > second.rank || w.rank == second.rank && w.from < second.from {
			w := w
			second = &w
		}
	}
	if second != nil && !sameText(units, *best, *second) {
		windows = append(windows, *second)
	}
	return windows
}

// quoteBudget bounds, in characters, what is quoted of one section beyond
// the window itself: enough for the few paragraphs, list or table in which
// a section states its point, short enough to read.
const quoteBudget = 1200

// quoteSections quotes, for each window, its section: the window itself,
// then the section's other passages from the most to the least telling
// while the quote stays within quoteBudget. A section is the book's own
// unit of explanation, and the sentence that finishes an answer ("... and
// the motor controllers need 1000 Hz") is often not the one that matched
// best. A list or table is quoted whole or not at all, and the line that
// introduces a quoted list or code block comes with it.
func quoteSections(units []*unit, windows []window) []*unit {
	picked := map[*unit]bool{}
	for _, w := range windows {
		key := keyOf(units[w.from])
		var section []int
		for i, u := range units {
			if keyOf(u) == key {
				section = append(section, i)
			}
		}
		blocks := blocksOf(units, section)
		used := 0
		var rest [][]int
		for _, b := range blocks {
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
			n := blockChars(units, b)
			if used+n > quoteBudget || len(b) > maxBlockUnits {
				continue
			}
			used += n
			for _, i := range b {
				picked[units[i]] = true
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

// unitsOf returns fresh copies of the chunks' units, numbered for one
// search. A chunk of the index was split when the index was built;
// another (a caller's own) is split now.
func (ix *Index) unitsOf(chunks []rag.ScoredChunk) []*unit {
	var units []*unit
	for ci := range chunks {
		c := &chunks[ci]
		cached, ok := ix.units[c.ID]
		if !ok || ix.chunks[ix.pos[c.ID]].Text != c.Text {
			cached = splitUnits(c.Chunk)
		}
		overview := path.Base(c.ChapterPath) == "index" && strings.Contains(c.ChapterPath, "/")
		quiz := assessmentTitle(c.ChapterTitle)
		for _, u := range cached {
			cp := *u
			cp.chunk = ci
			cp.overview = overview
			cp.asks = cp.asks || quiz
			cp.pos = len(units)
			units = append(units, &cp)
		}
	}
	return units
}

// sameText reports whether window b quotes only what window a quotes (the
// overlap repeats a chunk's end at the start of the next).
func sameText(units []*unit, a, b window) bool {
	have := map[string]bool{}
	for _, u := range units[a.from:a.to] {
		have[u.text] = true
	}
	for _, u := range units[b.from:b.to] {
		if !have[u.text] {
			return false
		}
	}
	return true
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
		return stemSet(strings.TrimSpace(strings.Split(heading, "(")[0]))
	}
	if subj == "" {
		if m := definitionShape.FindStringSubmatch(strings.ReplaceAll(t, "**", "")); m != nil {
			subj = m[1]
		}
	}
	if subj == "" {
		subj = heading
	}
	return stemSet(strings.TrimSpace(strings.Split(subj, "(")[0]))
}

// labelWords are bold line labels that say what kind of line follows,
// not what it is about.
var labelWords = map[string]bool{
	"definition": true, "meaning": true, "example": true, "examples": true, "note": true,
	"key idea": true, "key insight": true, "summary": true, "description": true, "in short": true,
}

// definitionShape matches "A topic is ...", "SDF (Simulation Description
// Format) is ...", "Drift refers to ...": up to five words, then the verb.
var definitionShape = regexp.MustCompile(`^(?:(?:A|An|The)\s+)?((?:[\w./-]+\s+){0,4}[\w./-]+)(?:\s+\([^)]*\))?\s+(?:is|are|means|refers to|describes)\s`)

// unitPrior lowers units that rarely answer a question by themselves:
// restatements (learning objectives, summaries), labels, and long code
// blocks unless the reader asked for code.
func unitPrior(u *unit, wantsCode bool) float64 {
	p := 1.0
	switch {
	case u.goal || u.asks:
		// Objectives say what a chapter will teach, and a quiz or an
		// exercise asks what the chapter taught: neither states it.
		p *= 0.5
	case u.summary || u.overview:
		p *= 0.8
	}
	switch u.kind {
	case label:
		p *= 0.9
	case code:
		if !wantsCode {
			p *= 0.85
		}
		// A long program holds many words by chance.
		if u.lines > 60 {
			p *= 0.7
		} else if u.lines > 25 {
			p *= 0.85
		}
	}
	return p
}

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
	return assessmentTitle(heading)
}

// assessmentTitle reports a heading or chapter title that marks a quiz,
// an exercise or a prompt for the reader.
func assessmentTitle(title string) bool {
	h := strings.ToLower(title)
	for _, w := range []string{"quiz", "exercise", "assessment", "check your understanding", "prompt"} {
		if strings.Contains(h, w) {
			return true
		}
	}
	return false
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

// asksForCode reports questions about commands, APIs or configuration,
// which code blocks answer best.
func asksForCode(question string) bool {
	for _, t := range tokenize(question) {
		switch t.stem {
		case "command", "code", "method", "function", "api", "call", "argument", "flag", "tag", "syntax", "launch", "config", "configur", "xml", "python", "snippet", "execut", "script", "paramet":
			return true
		}
	}
	return strings.Contains(question, "_") || strings.Contains(question, "`")
}

// ExplainEvidence lists the best-scoring units of the chunks for a
// question; the CLI's --explain flag prints it.
func (ix *Index) ExplainEvidence(question string, chunks []rag.ScoredChunk, n int) string {
	q := focus(ix.analyze(question), question)
	units := ix.unitsOf(chunks)
	wantsCode := asksForCode(question)
	for _, u := range units {
		u.score = q.coverage(func(s string) float64 {
			if u.terms[s] {
				return 1
			}
			return u.ctx.credit(s)
		}) * unitPrior(u, wantsCode)
	}
	sort.SliceStable(units, func(a, b int) bool { return units[a].score > units[b].score })
	var b strings.Builder
	for i, u := range units {
		if i >= n {
			break
		}
		t := strings.ReplaceAll(u.text, "\n", " / ")
		if len(t) > 140 {
			t = t[:140] + "…"
		}
		b.WriteString(fmtFloat(u.score) + " " + chunks[u.chunk].ChapterPath + " › " + u.heading.Text + " | " + t + "\n")
	}
	return b.String()
}

func numbersIn(s string) map[string]bool {
	m := map[string]bool{}
	for _, t := range tokenize(s) {
		if hasDigit(t.word) {
			m[t.word] = true
		}
	}
	return m
}

func hasDigit(s string) bool { return strings.IndexFunc(s, unicode.IsDigit) >= 0 }

// hasNewNumber reports whether a unit states a number the question did not.
func hasNewNumber(nums, qnums map[string]bool) bool {
	for n := range nums {
		if !qnums[n] {
			return true
		}
	}
	return false
}
