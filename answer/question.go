package answer

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/textbook-rag/rag/analysis"
)

// The question's reading: what the answerer learns of a question once
// per ask, before it looks at any unit. It starts from the tutor's
// analysis.Question (its tokens and subject terms, read once); the
// answerer's own operators (does it ask for code, a list, an amount, a
// date, a way of doing something) and its phrase are read here from that
// value, and no later stage looks at the text again.

// reading is what the answerer learns of the question once, before it
// looks at any unit.
type reading struct {
	q      analysis.Query
	sl     slots
	qnums  map[string]bool
	qstems map[string]bool
	// qidents holds the identifiers the question names, by their parts
	// ("humanoid|control" for humanoid_controller or HumanoidController).
	qidents    map[string]bool
	wantsCode  bool
	want       *regexp.Regexp // the answer type a passage must state, or nil
	definition bool
	// focus is the term a definition question asks about (see
	// definitionFocus); hasFocus is false for other questions.
	focus    focusTerm
	hasFocus bool
	// pairs are the question's phrase (see phrasePairs).
	pairs     []string
	wantsList bool
	// quantity marks a question that asks for an amount (see
	// asksQuantity), year one that asks for a year or a date
	// (yearQuestion), how one that asks for a way of doing something
	// (howQuestion).
	quantity, year, how bool
	// unknownName marks a question that names something the book never
	// mentions (see namesUnknown).
	unknownName bool
}

// Read reads a question once for the tutor's ask: the retriever and the
// answerer both take the value it returns.
func (ans *Answerer) Read(question string) *analysis.Question { return ans.book.Read(question) }

// own returns the question as this answerer's book reads it: a question
// read by another book is read again.
func (ans *Answerer) own(question *analysis.Question) *analysis.Question {
	if question.ReadBy(ans.book) {
		return question
	}
	return ans.book.Read(question.Text)
}

// readQuestion reads a question for the answerer, with q its subject
// terms (the question's Query, or fewer: a question about a selection
// leaves out the words that point at it).
func (ans *Answerer) readQuestion(question *analysis.Question, q analysis.Query) reading {
	text := question.Text
	r := reading{q: q, sl: newSlots(&q), qnums: numbersOf(question.Tokens), qstems: map[string]bool{},
		wantsCode: asksForCode(question.Tokens, text), want: answerTypeOf(question.Tokens), wantsList: asksForList(text),
		quantity: asksQuantity(text), year: yearQuestion.MatchString(text), how: howQuestion.MatchString(text),
		unknownName: ans.namesUnknown(text)}
	for _, t := range q.Terms {
		r.qstems[t.Stem] = true
	}
	r.qidents = map[string]bool{}
	for _, id := range identifiersIn(text) {
		r.qidents[strings.Join(id.parts, "|")] = true
	}
	r.focus, r.hasFocus = definitionFocus(question)
	r.pairs = phrasePairs(text)
	// A definition question asks what one term is (not a fact phrased
	// "what is the total latency?").
	r.definition = r.hasFocus
	return r
}

// asksForCode reports questions about commands, APIs or configuration,
// which code blocks answer best.
func asksForCode(tokens []analysis.Token, question string) bool {
	for _, t := range tokens {
		switch t.Stem {
		case "command", "code", "method", "function", "api", "call", "argument", "flag", "tag", "syntax", "launch", "config", "configur", "xml", "python", "snippet", "execut", "script", "paramet":
			return true
		}
	}
	return strings.Contains(question, "_") || strings.Contains(question, "`")
}

// numbersIn is the numbers a text states.
func numbersIn(s string) map[string]bool { return numbersOf(analysis.Tokenize(s)) }

func numbersOf(tokens []analysis.Token) map[string]bool {
	m := map[string]bool{}
	for _, t := range tokens {
		if hasDigit(t.Word) {
			m[t.Word] = true
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

// howQuestion matches questions that ask for a way of doing something.
var howQuestion = regexp.MustCompile(`(?i)\bhow\s+(?:do|does|can|could|should|would|to|did)\b|\bsteps?\s+(?:to|for)\b`)

// namesUnknown reports whether the question names something, written as
// a name (an acronym, an identifier, a capitalised word after the first),
// that the book never uses: a question about what the book leaves out
// often names it.
func (ans *Answerer) namesUnknown(question string) bool {
	opens := true // the word opens a sentence
	for _, f := range strings.Fields(question) {
		first := opens
		opens = strings.ContainsAny(f[len(f)-1:], ".!?:")
		for _, w := range nameParts(f) {
			low := strings.ToLower(w)
			if analysis.Stopwords[low] || analysis.QuestionWords[low] || !looksLikeName(w, first) {
				continue
			}
			if !ans.book.Mentions(w) {
				return true
			}
		}
	}
	return false
}

// nameParts splits a word of the question into what may be names: a
// path, a qualified name or a call gives its parts
// ("config/humanoid_params.yaml", "self.create_publisher(String,",
// "0.01°/hr"), and a possessive or contraction loses its tail ("Unity's",
// "I've"), as the book's words do when it is indexed.
func nameParts(field string) []string {
	var parts []string
	split := func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-'’", r)
	}
	for _, p := range strings.FieldsFunc(field, split) {
		if i := strings.IndexAny(p, "'’"); i >= 0 {
			p = p[:i]
		}
		p = strings.TrimFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
		if p != "" {
			parts = append(parts, p)
		}
	}
	return parts
}

// minNameLetters: a name has at least this many letters, and an acronym
// this many capitals (AMCL, ROS2); one letter ("I", "A") names nothing.
const minNameLetters = 2

// looksLikeName reports a word written as a name rather than as an
// ordinary word: two capitals or more (AMCL, ROS2, PyBullet), an
// identifier (static_transform_publisher), letters and digits together
// (VLP16), or a capital letter opening a word that does not open the
// question.
func looksLikeName(w string, first bool) bool {
	upper, letters, digits := 0, 0, 0
	for _, r := range w {
		switch {
		case unicode.IsUpper(r):
			upper++
			letters++
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		}
	}
	switch {
	case letters < minNameLetters:
		return false
	case upper >= minNameLetters, strings.Contains(w, "_"), digits > 0:
		return true
	}
	return upper == 1 && unicode.IsUpper([]rune(w)[0]) && !first
}

// answerTypeOf returns the pattern an answer must contain, or nil.
func answerTypeOf(tokens []analysis.Token) *regexp.Regexp {
	var words []string
	for _, t := range tokens {
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

// Answer types: some questions can only be answered by a passage that
// states a particular kind of fact. "How much does X cost?" is not
// answered by X's specifications, however well they match the words.
var (
	moneyRE = regexp.MustCompile(`(?i)[$€£¥]\s?\d|\d\s?(usd|eur|dollars?|euros?)\b|\bfree\b|\bper hour\b`)
	dateRE  = regexp.MustCompile(`(?i)\b(1[89]|20)\d\d\b|\b(january|february|march|april|may|june|july|august|september|october|november|december)\b`)
)
