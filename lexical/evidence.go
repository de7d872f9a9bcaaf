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
	ctx   map[string]float64 // stems from heading and lead, with credit
	nums  map[string]bool    // the numbers the unit states
	// subject is what the unit defines, when it reads as a definition.
	subject map[string]bool
	// overview marks units of a module's index page, which restates what
	// the chapters say.
	overview bool
	// goal and summary classify the unit's heading, and lines counts the
	// unit's line breaks: fixed per unit, so worked out once when it is cut.
	goal, summary bool
	lines         int
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

	// keepRatio: other units of the same section are quoted when they
	// score at least this share of the best one; selectedKeepRatio is the
	// same for a selection, where more of the text is worth quoting.
	keepRatio         = 0.6
	selectedKeepRatio = 0.3
	// secondRatio: another section is quoted too when its best window
	// ranks within this share of the best.
	secondRatio = 0.9
	// headingBonus weighs, in ranking passages, the share of the
	// question's information named by the passage's own heading.
	headingBonus = 0.1
	// apiBonus ranks up a passage using an identifier made of the
	// question's words.
	apiBonus = 0.2
	maxUnits = 8
	// maxListItems: lists up to this long are quoted whole.
	maxListItems = 5
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
	sel := ix.selectUnits(q, question, units, keepRatio, minWindow)
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
		out = append(out, rag.Passage{Text: u.text, Heading: u.heading, Chunk: &chunks[u.chunk]})
	}
	return out
}

// SelectedEvidence returns the passages of a reader's selection that
// answer the question, or nil when the selection does not hold the
// answer (a shared word is not enough).
func (ix *Index) SelectedEvidence(question, selected string) []rag.Passage {
	q := ix.analyze(question)
	// The reader chose the whole selection, so all of it is context for
	// each of its sentences, more than the rest of a retrieved chunk is.
	units := splitUnitsWith(selected, nil, "", "", selectionCredit)
	if pointsAtSelection(q) {
		// "What does this mean?", "Explain this passage": the selection is
		// the subject, so it is the evidence.
		var out []rag.Passage
		for _, u := range units {
			if len(out) == maxUnits {
				break
			}
			out = append(out, rag.Passage{Text: u.text, Heading: u.heading})
		}
		return out
	}
	for i, u := range units {
		u.pos = i
		u.chunk = -1
	}
	// The reader chose this text: quote every part of it that bears on
	// the question, not only the best.
	sel := ix.selectUnits(q, question, units, selectedKeepRatio, minSelected)
	out := make([]rag.Passage, 0, len(sel))
	for _, u := range sel {
		out = append(out, rag.Passage{Text: u.text, Heading: u.heading})
	}
	return out
}

// window is a run of up to maxWindow consecutive units of one section:
// an answer often takes two or three sentences to state.
type window struct {
	from, to int // units[from:to]
	score    float64
}

const maxWindow = 3

func (ix *Index) selectUnits(q query, question string, units []*unit, keep, minScore float64) []*unit {
	qnums := numbersIn(question)
	wantsCode := asksForCode(question)
	want := answerTypeOf(question)
	definition := isDefinition(question)
	qstems := map[string]bool{}
	for _, t := range q.terms {
		qstems[t.stem] = true
	}
	// match[i][k]: how unit i holds stem slot k (1 in its text, else the
	// credit of its context). A window holds a stem as well as its best
	// unit does.
	sl := newSlots(&q)
	match := make([][]float64, len(units))
	flat := make([]float64, len(units)*len(sl.stems))
	for i, u := range units {
		m := flat[i*len(sl.stems) : (i+1)*len(sl.stems)]
		for k, s := range sl.stems {
			if u.terms[s] {
				m[k] = 1
			} else {
				m[k] = u.ctx[s]
			}
		}
		match[i] = m
		u.score = q.coverageOf(sl, m) * unitPrior(u, wantsCode)
	}
	keyOf := func(u *unit) [2]any { return [2]any{u.chunk, u.heading.Text} }
	var best *window
	var bestRank float64
	// The best window of every section, for a second section to quote.
	type ranked struct {
		w    window
		rank float64
	}
	bySection := map[[2]any]ranked{}
	// A unit under a heading that names the question's words is where the
	// book talks about them ("Basic Publisher Structure" for "create a
	// publisher"), more than a passage that mentions them in passing.
	headShare := make([]float64, len(units))
	for i, u := range units {
		for _, t := range q.terms {
			if u.ctx[t.stem] >= headingCredit {
				headShare[i] += t.weight / q.total
			}
		}
	}
	// A unit that uses an identifier spelled out of the question's own
	// words ("create a publisher" -> create_publisher) shows the API asked
	// about.
	namesAPI := make([]bool, len(units))
	for i, u := range units {
		for _, parts := range u.idents {
			all := len(parts) >= 2
			for _, p := range parts {
				all = all && qstems[p]
			}
			if all {
				namesAPI[i] = true
				break
			}
		}
	}
	defines := make([]bool, len(units))
	if definition {
		for i, u := range units {
			defines[i] = definesSubject(u, qstems)
		}
	}
	// A unit states the answer type on its own or not at all.
	typed := make([]bool, len(units))
	if want != nil {
		for i, u := range units {
			typed[i] = want.MatchString(u.text)
		}
	}
	win := make([]float64, len(sl.stems))
	for i := range units {
		hasNum := false
		hasType := false
		prior := 1.0
		copy(win, match[i])
		for j := i; j < len(units) && j < i+maxWindow; j++ {
			u := units[j]
			if keyOf(u) != keyOf(units[i]) {
				break
			}
			for k, x := range match[j] {
				win[k] = max(win[k], x)
			}
			hasNum = hasNum || hasNewNumber(u.nums, qnums)
			hasType = hasType || typed[j]
			prior = min(prior, unitPrior(u, wantsCode))
			sc := q.coverageOf(sl, win) * prior * (1 - 0.04*float64(j-i))
			if q.wantsNumber && !hasNum {
				sc *= 0.8
			}
			if want != nil && !hasType {
				continue
			}
			rank := sc + headingBonus*headShare[i]
			if defines[i] {
				rank += 0.3
			}
			if slices.Contains(namesAPI[i:j+1], true) {
				rank += apiBonus
			}
			// Context credit stays below 1, so 1 means the text has it.
			shared := 0
			for _, k := range sl.term {
				if win[k] == 1 {
					shared++
				}
			}
			if sc < minScore || (keep == selectedKeepRatio && shared < min(2, len(q.terms))) {
				continue
			}
			if best == nil || rank > bestRank {
				best, bestRank = &window{from: i, to: j + 1, score: sc}, rank
			}
			if k := keyOf(units[i]); rank > bySection[k].rank {
				bySection[k] = ranked{window{from: i, to: j + 1, score: sc}, rank}
			}
		}
	}
	if best == nil {
		return nil
	}
	// Quote the best window and, when another section's best comes
	// close, that one too: an answer is often split between a rule and
	// its table, or a summary and its section.
	windows := []window{*best}
	var second *ranked
	for k, r := range bySection {
		if k == keyOf(units[best.from]) || r.rank < secondRatio*bestRank || r.w.score < minScore {
			continue
		}
		if second == nil || r.rank > second.rank || r.rank == second.rank && r.w.from < second.w.from {
			r := r
			second = &r
		}
	}
	if second != nil && !sameText(units, *best, second.w) {
		windows = append(windows, second.w)
	}
	picked := map[*unit]bool{}
	for _, w := range windows {
		first := units[w.from]
		for _, u := range units[w.from:w.to] {
			picked[u] = true
		}
		// The strong units of the window's section.
		for _, u := range units {
			if keyOf(u) == keyOf(first) && u.score >= keep*w.score && u.score >= minScore*keep/keepRatio {
				picked[u] = true
			}
		}
	}
	// A quoted list item brings its siblings when the list is short: a list
	// is read whole ("Spring between motor and output" needs "Lower
	// bandwidth but inherent force sensing"). A list right under its
	// heading has no lead-in; the heading introduces it.
	for _, u := range units {
		if !picked[u] || u.kind != item {
			continue
		}
		var siblings []*unit
		for _, v := range units {
			if v.chunk == u.chunk && v.kind == item && v.lead == u.lead && keyOf(v) == keyOf(u) {
				siblings = append(siblings, v)
			}
		}
		if len(siblings) <= maxListItems {
			for _, v := range siblings {
				picked[v] = true
			}
		}
	}
	// Whatever list or code block a quoted line introduces.
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
	var sel []*unit
	for _, u := range units {
		if picked[u] {
			sel = append(sel, u)
		}
	}
	if len(sel) > maxUnits {
		// Keep the window and the strongest of the rest, in book order.
		byScore := append([]*unit(nil), sel...)
		sort.SliceStable(byScore, func(a, b int) bool { return byScore[a].score > byScore[b].score })
		keep := map[*unit]bool{}
		for _, w := range windows {
			for _, u := range units[w.from:w.to] {
				keep[u] = true
			}
		}
		for _, u := range byScore {
			if len(keep) >= maxUnits {
				break
			}
			keep[u] = true
		}
		sel = sel[:0]
		for _, u := range units {
			if keep[u] {
				sel = append(sel, u)
			}
		}
	}
	return sel
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
			cached = splitUnits(c.Text, c.Headings, c.SectionHeading, c.Anchor)
		}
		overview := path.Base(c.ChapterPath) == "index" && strings.Contains(c.ChapterPath, "/")
		for _, u := range cached {
			cp := *u
			cp.chunk = ci
			cp.overview = overview
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

// pointsAtSelection reports a question with no subject of its own, only
// words that point at the selected text ("explain this passage in simpler
// words").
func pointsAtSelection(q query) bool {
	for _, t := range q.terms {
		if !selectionWords[t.word] {
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
	case u.goal:
		// Objectives say what a chapter will teach, never the answer.
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

func goalHeading(h string) bool {
	h = strings.ToLower(h)
	for _, w := range []string{"learning objective", "learning outcome", "chapter goal", "module goal", "you will learn", "objectives"} {
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
			return u.ctx[s]
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
