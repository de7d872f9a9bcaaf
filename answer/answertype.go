package answer

import (
	"regexp"
	"strings"

	"github.com/textbook-rag/rag/analysis"
)

// Answer types: some questions can only be answered by a passage that
// states a particular kind of fact. "How much does X cost?" is not
// answered by X's specifications, however well they match the words.
var (
	moneyRE = regexp.MustCompile(`(?i)[$€£¥]\s?\d|\d\s?(usd|eur|dollars?|euros?)\b|\bfree\b|\bper hour\b`)
	dateRE  = regexp.MustCompile(`(?i)\b(1[89]|20)\d\d\b|\b(january|february|march|april|may|june|july|august|september|october|november|december)\b`)
)

// answerTypeOf returns the pattern an answer must contain, or nil.
func answerTypeOf(question string) *regexp.Regexp {
	var words []string
	for _, t := range analysis.Tokenize(question) {
		words = append(words, t.Word)
	}
	q := " " + strings.Join(words, " ") + " "
	switch {
	case containsAny(q, " cost ", " costs ", " price ", " priced ", " how much money ", " how expensive ", " cheap"):
		return moneyRE
	case containsAny(q, " what year", " which year", " when was ", " when were ", " when did ", " when will ", " what date", " end of life", " end-of-life", " release date", " founded "):
		return dateRE
	}
	return nil
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// enumerationQuestion matches questions that ask for several things of a
// kind ("which physics engines", "what types of joints", "list the ..."):
// a list or a table states those, a sentence rarely names them all.
var enumerationQuestion = regexp.MustCompile(`(?i)^(?:.*[,;:]\s*)?(?:which\s+\w{3,}s\b|what\s+(?:\w+\s+)?(?:kinds?|types?|sorts?)\b|what\s+are\s+the\s+(?:\w+\s+)?(?:kinds|types|components|parts|steps|options|categories|stages|layers)|list\s|name\s+the\s)`)

// asksForList reports a question that asks for several things of a kind.
func asksForList(question string) bool {
	return enumerationQuestion.MatchString(strings.TrimSpace(question))
}
