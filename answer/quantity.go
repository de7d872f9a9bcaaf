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

// yearQuestion matches a question that asks for a year or a date in so
// many words ("in what year", "which year", "on what date").
var yearQuestion = regexp.MustCompile(`(?i)\b(?:what|which)\s+(?:year|date)\b`)

// yearRE matches what answers "in what year": a year of the last two
// millennia, one before the common era, or a month.
var yearRE = regexp.MustCompile(`(?i)\b(?:1\d{3}|20\d{2})\b|\b\d+\s*(?:BCE|BC|CE|AD)\b|\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b`)

// withQuantities keeps, for a question that asks for an amount, the
// candidates whose section (within its chunk) states one, and for a
// question that asks for a year or a date, those whose section states
// one (yearRE); it returns the candidates unchanged for any other
// question. A passage without the kind of fact asked for cannot answer,
// however well its words match.
func withQuantities(r reading, units []*unit, cands []candidate) []candidate {
	if !r.quantity && !r.year {
		return cands
	}
	states := map[sectionKey]bool{}
	for _, u := range units {
		if states[keyOf(u)] {
			continue
		}
		if (!r.quantity || statesQuantity(u.nums, r.qnums, u.text)) && (!r.year || yearRE.MatchString(u.text)) {
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
