package answer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

// SelectedEvidence returns the passages of a reader's selection that
// answer the question, or nil when the selection does not hold the
// answer (a shared word is not enough): its score (SelectionScore) must
// reach the model's SelectedThreshold. A question about the selection as
// a whole ("What does this mean?", "Summarise this") gets all of it; any
// other question gets the sentences, items, rows and code that answer it.
// Passages keep the reader's paragraphs and lines.
func (ans *Answerer) SelectedEvidence(question *analysis.Question, selected string) []rag.Passage {
	score, passages := ans.SelectionScore(question, selected)
	if score < ans.model.SelectedThreshold {
		return nil
	}
	return passages
}

// SelectionScore says how well a reader's selection answers the
// question, from 0 (no part of it holds two of the question's words with
// the answer's type) to 1, with the passages it would quote: the best
// window's share of the question's information, counting the selection
// around it (see selectionScore). A question that only points at the
// selection scores 1 and gets all of it. The fit chooses the threshold
// on these scores.
func (ans *Answerer) SelectionScore(question *analysis.Question, selected string) (float64, []rag.Passage) {
	question = ans.own(question)
	q := ans.withoutPointers(question)
	text := readerLines(selected)
	// The reader chose the whole selection, so all of it is context for
	// each of its sentences, more than the rest of a retrieved chunk is.
	units := selectionUnits(text)
	if len(q.Terms) == 0 {
		// Nothing but words pointing at the selection: it is the subject,
		// so it is the evidence, all of it.
		return 1, selectionPassages(units)
	}
	score := ans.selectionScore(question, q, units)
	if score == 0 {
		return 0, nil
	}
	return score, selectionPassages(answeringSpan(q, units))
}

// anchorShare: a block of the selection anchors the answer when it holds
// at least half of what the best block holds of the question; the blocks
// between anchors come too: the reader chose this text around the answer,
// and an answer cut short is worse than one that quotes a block too many.
const anchorShare = 0.5

// answeringSpan is the part of a selection that answers: from the first
// to the last block (a paragraph, or a list, table or code block with the
// line that introduces it) that states at least anchorShare of what the
// best block states of the question, and on through the blocks after it
// that still use the question's words: what follows a passage explains or
// finishes it ("What happened? The actuator was too ideal: ..." after the
// scenario a question restates). The blocks between stay: they carry what
// the anchors refer to ("Actions provide all three" needs the three).
// Blocks before the first anchor, and after the answer once a block
// shares nothing with the question, are left out.
func answeringSpan(q analysis.Query, units []*unit) []*unit {
	if len(units) == 0 {
		return nil
	}
	block := selectionBlocks(units)
	n := block[len(block)-1] + 1
	terms := make([]map[string]bool, n)
	for i, u := range units {
		if terms[block[i]] == nil {
			terms[block[i]] = map[string]bool{}
		}
		for s := range u.terms {
			terms[block[i]][s] = true
		}
	}
	score := make([]float64, n)
	uses := make([]bool, n) // the block states a question word
	for b, ts := range terms {
		score[b] = q.Coverage(func(stem string) float64 {
			if ts[stem] {
				return 1
			}
			return 0
		})
		for _, t := range q.Terms {
			uses[b] = uses[b] || ts[t.Stem]
		}
	}
	best := 0.0
	for _, s := range score {
		best = max(best, s)
	}
	first, last := -1, -1
	for b, s := range score {
		if s > 0 && s >= anchorShare*best {
			if first < 0 {
				first = b
			}
			last = b
		}
	}
	if first < 0 {
		return units
	}
	for last+1 < len(score) && uses[last+1] {
		last++
	}
	var out []*unit
	for i, u := range units {
		if block[i] >= first && block[i] <= last {
			out = append(out, u)
		}
	}
	return out
}

// selectionBlocks numbers the blocks of a text's units: the sentences of one
// paragraph, the rows of one table, the items of one list together with
// the line that introduces them; each code block with its lead-in.
func selectionBlocks(units []*unit) []int {
	block := make([]int, len(units))
	id := 0
	for i, u := range units {
		if i > 0 {
			prev := units[i-1]
			prose := u.kind == sentence || u.kind == label
			same := false
			switch {
			case prose:
				same = (prev.kind == sentence || prev.kind == label) && prev.para == u.para
			case u.lead != "" && (prev.kind == sentence || prev.kind == label) && (prev.text == u.lead || strings.HasPrefix(u.lead, prev.text+" ")):
				// A list, table or code block and the line that introduces
				// it (a table row's lead-in goes on with its header).
				same = true
			case u.kind != code:
				same = prev.kind == u.kind && prev.lead == u.lead
			}
			if !same {
				id++
			}
		}
		block[i] = id
	}
	return block
}

func selectionUnits(text string) []*unit {
	units := splitUnitsWith(text, nil, "", "", "", selectionCredit)
	for i, u := range units {
		u.pos = i
		u.chunk = -1
	}
	return units
}

func selectionPassages(units []*unit) []rag.Passage {
	out := make([]rag.Passage, 0, len(units))
	for _, u := range units {
		out = append(out, rag.Passage{Text: u.text, Heading: u.heading, Paragraph: u.para})
	}
	return out
}

// withoutPointers drops from a question about a selection the words that
// point at it ("this passage", "the example above", "in simpler words"):
// they say where to look, not what the selection has to hold. A word is
// dropped in whatever form the question resolved it to.
func (ans *Answerer) withoutPointers(question *analysis.Question) analysis.Query {
	q := question.Terms
	pointers := map[string]bool{}
	for _, t := range question.Tokens {
		// A part of a compound ("16-bit") is the compound's, not a pointer.
		if t.Part || !analysis.SelectionWords[t.Word] {
			continue
		}
		for _, qt := range ans.book.Resolve(t) {
			pointers[qt.Stem] = true
		}
	}
	out := analysis.Query{WantsNumber: q.WantsNumber}
	for _, t := range q.Terms {
		if pointers[t.Stem] {
			continue
		}
		out.Terms = append(out.Terms, t)
		out.Total += t.Weight
	}
	return out
}

// readerLines keeps the lines the reader saw. Text copied from a rendered
// page has lost its Markdown: list items, table rows and lines of code are
// separated by single line breaks, which Markdown would run together into
// one paragraph, and the browser breaks no line of its own; so in a
// selection without Markdown every line is kept. In Markdown, a line break
// after a sentence end or a colon, or before a capital, starts a paragraph
// of its own; one inside a sentence (the next line goes on in lower case)
// is a wrapped line and stays. Lists, tables, headings, quotes and code
// keep their Markdown.
func readerLines(text string) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	rendered := !hasMarkdown(lines)
	var b strings.Builder
	fence := "" // the open code block's fence: a ````md block shows ``` ones
	for i, line := range lines {
		b.WriteString(line)
		if i == len(lines)-1 {
			break
		}
		b.WriteByte('\n')
		t := strings.TrimSpace(line)
		switch {
		case fence != "" && strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "":
			fence = ""
		case fence == "" && isFence(t):
			fence = t[:len(t)-len(strings.TrimLeft(t, t[:1]))]
		}
		fenced := fence != ""
		next := lines[i+1]
		if rendered {
			if t != "" && strings.TrimSpace(next) != "" {
				b.WriteByte('\n')
			}
			continue
		}
		if fenced || !isPlainLine(line) || !isPlainLine(next) {
			continue
		}
		if strings.HasSuffix(t, ":") || endsSentence(t) || startsCapital(next) {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// hasMarkdown reports text with Markdown syntax: a list item, table row,
// heading, quote or fence at the start of a line, or inline code or bold.
func hasMarkdown(lines []string) bool {
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if itemLine.MatchString(t) || headingLine.MatchString(t) || strings.HasPrefix(t, "|") || strings.HasPrefix(t, ">") ||
			strings.HasPrefix(t, "~~~") || strings.Contains(t, "`") || strings.Contains(t, "**") {
			return true
		}
	}
	return false
}

// isPlainLine reports a non-empty line of running text: not indented (a
// list item's continuation), not a list item, table row, heading, quote
// or fence.
func isPlainLine(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" || line != strings.TrimLeft(line, " \t") {
		return false
	}
	if itemLine.MatchString(line) || headingLine.MatchString(t) {
		return false
	}
	switch t[0] {
	case '|', '#', '>', '`', '~':
		return false
	}
	return true
}

func endsSentence(t string) bool {
	t = strings.TrimRight(t, `"')]*_`)
	return strings.HasSuffix(t, ".") || strings.HasSuffix(t, "!") || strings.HasSuffix(t, "?")
}

func startsCapital(line string) bool {
	t := strings.TrimLeft(strings.TrimSpace(line), `*_"'(`)
	r, _ := utf8.DecodeRuneInString(t)
	return unicode.IsUpper(r) || unicode.IsDigit(r)
}

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

	// minStatedWords: a window the rule accepts states this many of the
	// question's words itself, as the spec puts it "not merely a shared
	// word" (all of a one-word question's).
	minStatedWords = 2

	// maxUnits bounds how far after a lead-in line ("Create the
	// package:") the list or code block it introduces may reach.
	maxUnits = 8
)

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
			if shared >= min(minStatedWords, len(r.q.Terms)) {
				best = max(best, sc)
			}
		}
	}
	return best
}

// selectionPrior is the selection rule's discount for units that rarely
// answer a question by themselves: restatements (learning objectives,
// summaries), labels, and long code blocks unless the reader asked for
// code.
func selectionPrior(u *unit, wantsCode bool) float64 {
	p := 1.0
	switch {
	case u.goal || u.asks:
		p *= pointingPrior
	case u.summary || u.overview:
		p *= restatingPrior
	}
	switch u.kind {
	case label:
		p *= labelPrior
	case code:
		if !wantsCode {
			p *= unaskedCodePrior
		}
		if u.lines > longCodeLines {
			p *= longCodePrior
		} else if u.lines > midCodeLines {
			p *= midCodePrior
		}
	}
	return p
}

// selectionPrior's discounts, set by hand with the rule's credits above
// (the rule is fixed, not fitted: see headingCredit).
const (
	// pointingPrior: objectives say what a chapter will teach, and a quiz
	// or an exercise asks what it taught: neither states it.
	pointingPrior = 0.5
	// restatingPrior: a summary or a module's overview restates what the
	// chapters state, in fewer words.
	restatingPrior = 0.8
	// labelPrior: a line ending in ':' introduces what follows it.
	labelPrior = 0.9
	// unaskedCodePrior: code the reader did not ask for rarely answers.
	unaskedCodePrior = 0.85
	// A long program holds many words by chance: past midCodeLines lines
	// a code block counts at midCodePrior, past longCodeLines at
	// longCodePrior.
	midCodeLines  = 25
	midCodePrior  = 0.85
	longCodeLines = 60
	longCodePrior = 0.7
)
