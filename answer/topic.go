package answer

import (
	"strings"

	"github.com/textbook-rag/rag/analysis"
)

// Topic names a question's main subject for the empty-retrieval message:
// the run of consecutive subject words (as the reader wrote them) that
// carries the most information, where words the book never uses weigh
// most. It returns "" when the question has no subject words. A word is
// read by the question's first token that lies within it: the question
// is not tokenized again.
func (ans *Answerer) Topic(question *analysis.Question) string {
	question = ans.own(question)
	var best, run []string
	var bestW, runW float64
	flush := func() {
		if runW > bestW {
			best, bestW = append([]string(nil), run...), runW
		}
		run, runW = run[:0], 0
	}
	next := 0 // the first token not yet passed
	for _, f := range topicFields(question.Text) {
		for next < len(question.Tokens) && question.Spans[next][0] < f.from {
			next++
		}
		k := next
		for k < len(question.Tokens) && question.Spans[k][0] < f.to && question.Spans[k][1] > f.to {
			k++ // runs on past the word: not the word's own
		}
		if k == len(question.Tokens) || question.Spans[k][0] >= f.to {
			flush()
			continue
		}
		t := question.Tokens[k]
		if analysis.Stopwords[t.Word] || analysis.QuestionWords[t.Word] || (ans.book.DF(t.Stem) == 0 && analysis.IsMisspeltFunctionWord(t.Word)) {
			flush()
			continue
		}
		run = append(run, f.word)
		runW += ans.book.IDF(t.Stem)
	}
	flush()
	return strings.Join(best, " ")
}

// topicField is a word of a question as the reader wrote it, between
// spaces and punctuation, trimmed of dots and apostrophes: runes
// [from, to) of the question.
type topicField struct {
	word     string
	from, to int
}

func topicFields(question string) []topicField {
	sep := func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == ',' || r == '?' || r == '!' || r == ';' || r == ':' || r == '(' || r == ')' || r == '"'
	}
	trim := func(r rune) bool { return r == '.' || r == '\'' || r == '’' }
	var out []topicField
	runes := []rune(question)
	for i := 0; i < len(runes); {
		if sep(runes[i]) {
			i++
			continue
		}
		j := i
		for j < len(runes) && !sep(runes[j]) {
			j++
		}
		from, to := i, j
		for from < to && trim(runes[from]) {
			from++
		}
		for to > from && trim(runes[to-1]) {
			to--
		}
		out = append(out, topicField{word: string(runes[from:to]), from: from, to: to})
		i = j
	}
	return out
}
