package answer

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
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

// The selection's sufficiency rule. A reader's selection is judged by a
// fixed rule, not by the answerer's model: the labelled books hold too
// few selections to fit one, and the refusal spec asks for a plain
// "does the selection hold the answer" check.
const (
	headingCredit = 0.7
	sectionCredit = 0.5
	leadCredit    = 0.7
	// chunkCredit is the credit of a word elsewhere in a chunk (units of
	// a chunk keep it; only a selection's rule reads credits).
	chunkCredit = 0.25
	// selectionCredit is the credit of a word elsewhere in the selection.
	selectionCredit = 0.5
	// stepPenalty: each further unit of a window must earn its place.
	stepPenalty = 0.04
	// noNumberFactor: a "how many" window that states no new number is
	// unlikely to answer.
	noNumberFactor = 0.8

	// maxUnits bounds how far after a lead-in line ("Create the
	// package:") the list or code block it introduces may reach.
	maxUnits = 8
)

// Evidence returns the passages of the chunks that answer the question,
// in book order, or nil when no part of them does. Every window of the
// chunks is a candidate; the model gives each the probability that it
// answers, and the best is quoted when that probability reaches the
// model's threshold. It never returns text that is not in the chunks.
func (ans *Answerer) Evidence(question *analysis.Question, chunks []rag.ScoredChunk) []rag.Passage {
	r, units, cands := ans.prepare(question, chunks)
	best := ans.best(cands)
	// A threshold of 1 answers nothing (a stale model: see DefaultModel),
	// definitions included.
	if best == nil || best.p < ans.model.Threshold {
		if best = definer(r, units, cands); best == nil || ans.model.Threshold >= 1 {
			return nil
		}
	}
	return ans.quote(r, units, chunks, windowsOf(cands, best.section))
}

// definer returns, for a question that asks what a term is, the most
// probable candidate whose section defines that term in so many words
// (see definesFocus): where the model is unsure, a book's own marked
// definition answers "what is X?". It returns nil for other questions,
// or when no candidate defines the term. cands must be scored.
func definer(r reading, units []*unit, cands []candidate) *candidate {
	if !r.hasFocus {
		return nil
	}
	defines := map[sectionKey]bool{}
	for i, u := range units {
		// A glossary's entry is headed by its term and defined by its
		// first line.
		entry := u.glossary && (i == 0 || keyOf(units[i-1]) != keyOf(u)) && probeKey(headingTerm(u.heading.Text)) == termKey(r.focus.stems)
		// So is an entry of a definition list or of a table of terms.
		listed := false
		if t := entryTerm(u); t != "" {
			listed = probeKey(t) == termKey(r.focus.stems)
		}
		if definesFocus(u, r.focus) || entry || listed {
			defines[keyOf(u)] = true
		}
	}
	sum := map[string]float64{}
	for _, c := range cands {
		sum[c.group] += c.p
	}
	var best *candidate
	for i, c := range cands {
		if defines[keyOf(units[c.w.from])] && (best == nil || sum[c.group] > sum[best.group]) {
			best = &cands[i]
		}
	}
	return best
}

// windowsOf returns the windows of a section's candidates, the one that
// states most of the question first: a section that overlapping chunks
// both hold is quoted from all of them, as Pick chose it from all of
// them. The order does not depend on the model, so that the fit's labels
// do not either.
func windowsOf(cands []candidate, section string) []window {
	var ws []window
	for _, c := range cands {
		if c.section == section {
			ws = append(ws, c.w)
		}
	}
	sort.SliceStable(ws, func(a, b int) bool { return ws[a].score > ws[b].score })
	return ws
}

// Candidate is a passage the answerer could quote, as the fit command
// sees it: its features and the passages quoting it would return.
type Candidate struct {
	Features []float64
	Passages []rag.Passage
	// Section names the candidate's section in the book; Group what its
	// probability adds up with (see Pick): its section, or the first
	// section of the same text.
	Section, Group string
}

// Candidates lists every candidate passage of the chunks for a question,
// with what quoting each would return. The fit command labels them; the
// answerer itself only quotes the best.
func (ans *Answerer) Candidates(question *analysis.Question, chunks []rag.ScoredChunk) []Candidate {
	r, units, cands := ans.prepare(question, chunks)
	quotes := map[string][]rag.Passage{}
	out := make([]Candidate, len(cands))
	for i, c := range cands {
		q, ok := quotes[c.section]
		if !ok {
			q = ans.quote(r, units, chunks, windowsOf(cands, c.section))
			quotes[c.section] = q
		}
		out[i] = Candidate{Features: c.x, Passages: q, Section: c.section, Group: c.group}
	}
	return out
}

// prepare reads the question and lists the chunks' candidates.
func (ans *Answerer) prepare(question *analysis.Question, chunks []rag.ScoredChunk) (reading, []*unit, []candidate) {
	question = ans.own(question)
	r := ans.readQuestion(question, question.Query)
	if len(r.q.Terms) == 0 {
		return r, nil, nil
	}
	units := ans.unitsOf(chunks)
	return r, units, withQuantities(r, units, ans.candidates(r, units, chunks))
}

// best scores the candidates and returns the most probable, the first
// in book order on a tie; nil when there are none.
func (ans *Answerer) best(cands []candidate) *candidate {
	if len(cands) == 0 {
		return nil
	}
	xs := make([][]float64, len(cands))
	groups := make([]string, len(cands))
	for i, c := range cands {
		xs[i], groups[i] = c.x, c.group
	}
	// Each candidate keeps its own probability under the model (the
	// definitions rule and --explain read it); the pick is judged with
	// the members too.
	probs := ans.model.Probs(xs)
	for i := range cands {
		cands[i].p = probs[i]
	}
	i, p := ans.model.Pick(xs, probs, groups)
	best := cands[i]
	best.p = p
	return &best
}

// Pick chooses what to quote from candidates' probabilities: the section
// (named by sections[i]) most likely to answer, counting every candidate
// of it (overlapping chunks repeat a section), and in it the most
// probable candidate, the first on a tie. It returns that candidate and
// its section's probability.
func Pick(probs []float64, sections []string) (int, float64) {
	sum := map[string]float64{}
	for i, p := range probs {
		sum[sections[i]] += p
	}
	best := -1
	for i, p := range probs {
		if best < 0 {
			best = i
			continue
		}
		ps, pb := sum[sections[i]], sum[sections[best]]
		if ps > pb || ps == pb && sections[i] == sections[best] && p > probs[best] {
			best = i
		}
	}
	return best, sum[sections[best]]
}

// quote returns the passages that quoting window w gives: its section,
// as quoteSections chooses, and for a list question the headings of the
// section's parts; in book order, each unit once.
func (ans *Answerer) quote(r reading, units []*unit, chunks []rag.ScoredChunk, ws []window) []rag.Passage {
	sel := quoteSections(units, ws)
	if r.wantsList {
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

const maxWindow = 3

// sectionKey names the section a unit belongs to within one search: its
// chunk and its most specific heading.
type sectionKey struct {
	chunk   int
	heading string
}

func keyOf(u *unit) sectionKey { return sectionKey{u.chunk, u.heading.Text} }

// unitFacts are the per-unit signals of a search.
type unitFacts struct {
	match    [][]float64 // match[i][k]: unit i's credit for stem slot k (the selection's rule)
	namesAPI []bool      // uses an identifier spelled from the question's words
	defines  []bool      // defines the question's subject
	typed    []bool      // states the answer type the question wants
}

// scoreUnits gives every unit its score, the share of the question's
// information its text states (which orders the passages of a quoted
// section), and works out the per-unit signals.
func (r reading) scoreUnits(units []*unit) unitFacts {
	sl := r.sl
	f := unitFacts{
		match:    make([][]float64, len(units)),
		namesAPI: make([]bool, len(units)),
		defines:  make([]bool, len(units)),
		typed:    make([]bool, len(units)),
	}
	flat := make([]float64, len(units)*len(sl.stems))
	for i, u := range units {
		m := flat[i*len(sl.stems) : (i+1)*len(sl.stems)]
		for k, s := range sl.stems {
			if u.terms[s] {
				m[k] = 1
			} else {
				m[k] = u.ctx.credit(s)
			}
		}
		f.match[i] = m
		u.score = 0
		for _, t := range r.q.Terms {
			if u.terms[t.Stem] {
				u.score += t.Weight / r.q.Total
			}
		}
		// An identifier spelled out of the question's own words ("create
		// a publisher" -> create_publisher) shows the API asked about; one
		// the question itself names, in any spelling ("LiDAR",
		// humanoid_controller for HumanoidController), shows nothing more.
		for _, id := range u.idents {
			all := len(id.parts) >= 2 && !r.qstems[id.whole] && !r.qidents[strings.Join(id.parts, "|")]
			for _, p := range id.parts {
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

// selectionScore is the best score of a window (up to three consecutive
// units) of a reader's selection: its share of the question's
// information, counting the words around it at the credits above, for a
// window that states two of the question's words itself ("not merely a
// shared word") and the answer's type; 0 when no window does.
func (ans *Answerer) selectionScore(question *analysis.Question, q analysis.Query, units []*unit) float64 {
	r := ans.readQuestion(question, q)
	best := 0.0
	f := r.scoreUnits(units)
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
			prior = min(prior, selectionPrior(u, r.wantsCode))
			sc := coverageOf(&r.q, r.sl, win) * prior * (1 - stepPenalty*float64(j-i))
			if r.q.WantsNumber && !hasNum {
				sc *= noNumberFactor
			}
			// A unit states the answer type on its own or not at all.
			if r.want != nil && !hasType {
				continue
			}
			// Context credit stays below 1, so 1 means the text has it.
			shared := 0
			for _, k := range r.sl.term {
				if win[k] == 1 {
					shared++
				}
			}
			if shared >= min(2, len(r.q.Terms)) {
				best = max(best, sc)
			}
		}
	}
	return best
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

// unitsOf returns fresh copies of the chunks' units, numbered for one
// search. A chunk of the book was split when the answerer was built;
// another (a caller's own) is split now.
func (ans *Answerer) unitsOf(chunks []rag.ScoredChunk) []*unit {
	var units []*unit
	for ci := range chunks {
		c := &chunks[ci]
		cached, ok := ans.units[c.ID]
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

// selectionPrior is the selection rule's discount for units that rarely
// answer a question by themselves: restatements (learning objectives,
// summaries), labels, and long code blocks unless the reader asked for
// code.
func selectionPrior(u *unit, wantsCode bool) float64 {
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

// ExplainEvidence lists the most probable candidate passages for a
// question with their probability and strongest features; the CLI's
// --explain flag prints it.
func (ans *Answerer) ExplainEvidence(question string, chunks []rag.ScoredChunk, n int) string {
	_, units, cands := ans.prepare(ans.Read(question), chunks)
	ans.best(cands)
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].p > cands[b].p })
	var b strings.Builder
	b.WriteString("threshold " + fmtFloat(ans.model.Threshold) + "\n")
	for i, c := range cands {
		if i >= n {
			break
		}
		u := units[c.w.from]
		var t []string
		for _, v := range units[c.w.from:c.w.to] {
			t = append(t, v.text)
		}
		text := strings.ReplaceAll(strings.Join(t, " "), "\n", " / ")
		if len(text) > 140 {
			text = text[:140] + "…"
		}
		b.WriteString(fmtFloat(c.p) + " " + chunks[u.chunk].ChapterPath + " › " + u.heading.Text + " | " + text + "\n")
	}
	b.WriteString(ans.explainLeaders(cands))
	return b.String()
}

// explainLeaders says why the leading section beat the second: what
// each feature added to the two sections' scores (weight times the
// standardised value), the largest differences first. cands are sorted
// by probability.
func (ans *Answerer) explainLeaders(cands []candidate) string {
	var first, second *candidate
	for i := range cands {
		switch {
		case first == nil:
			first = &cands[i]
		case cands[i].group != first.group:
			second = &cands[i]
		}
		if second != nil {
			break
		}
	}
	if second == nil {
		return ""
	}
	m := ans.model
	type part struct {
		name   string
		a, b   float64
		differ float64
	}
	var parts []part
	for i, f := range Features {
		a := m.Weights[i] * (first.x[i] - m.Mean[i]) / m.Scale[i]
		b := m.Weights[i] * (second.x[i] - m.Mean[i]) / m.Scale[i]
		if a != b {
			parts = append(parts, part{f.Name, a, b, a - b})
		}
	}
	sort.SliceStable(parts, func(i, j int) bool { return math.Abs(parts[i].differ) > math.Abs(parts[j].differ) })
	var b strings.Builder
	b.WriteString("why " + first.section + " beat " + second.section + " (feature: first, second, difference):\n")
	for i, p := range parts {
		if i == 12 {
			break
		}
		fmt.Fprintf(&b, "  %-20s %+.2f %+.2f %+.2f\n", p.name, p.a, p.b, p.differ)
	}
	return b.String()
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
