package answer

import (
	"regexp"
	"strings"

	"github.com/textbook-rag/rag/analysis"
)

// Quantities: a question that asks for an amount ("how many", "how
// much smaller", "what percentage") is answered only by a passage that
// states one. A section that introduces the study or the device asked
// about, without its figure, matches the question's words as well as the
// section that gives the figure, and quoting it answers nothing.

// quantityQuestion matches a question that asks for an amount.
var quantityQuestion = regexp.MustCompile(`(?i)\bhow\s+(?:many|much)\b|\bwhat\s+(?:percentage|percent|proportion|fraction|share|ratio|number)\s+of\b|\bby\s+(?:how\s+much|what\s+(?:factor|percentage|margin))\b`)

// asksQuantity reports a question that asks for an amount.
func asksQuantity(question string) bool { return quantityQuestion.MatchString(question) }

// numberWords are the English words that state an amount without a
// digit ("seven routes", "twice as fast", "half the size"). "One" is left
// out: as a pronoun it states nothing.
var numberWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`two three four five six seven eight nine ten eleven twelve thirteen fourteen
		fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety
		hundred hundreds thousand thousands million millions billion billions trillion trillions dozen dozens
		once twice thrice half double triple quadruple percent`) {
		m[w] = true
	}
	return m
}()

// statesQuantity reports a text that states an amount the question does
// not: a figure (qnums holds the question's own) or a number word.
func statesQuantity(nums, qnums map[string]bool, text string) bool {
	if hasNewNumber(nums, qnums) || strings.Contains(text, "%") {
		return true
	}
	for _, t := range analysis.Tokenize(text) {
		if numberWords[t.Word] {
			return true
		}
	}
	return false
}

// withQuantities keeps, for a question that asks for an amount, the
// candidates whose section (within its chunk) states one; it returns
// the candidates unchanged for any other question.
func withQuantities(r reading, units []*unit, cands []candidate) []candidate {
	if !r.quantity {
		return cands
	}
	states := map[sectionKey]bool{}
	for _, u := range units {
		if !states[keyOf(u)] && statesQuantity(u.nums, r.qnums, u.text) {
			states[keyOf(u)] = true
		}
	}
	var out []candidate
	for _, c := range cands {
		if states[keyOf(units[c.w.from])] {
			out = append(out, c)
		}
	}
	return out
}
