package answer

import (
	"strings"

	"github.com/textbook-rag/rag/analysis"
)

// Topic names a question's main subject for the empty-retrieval message:
// the run of consecutive subject words (as the reader wrote them) that
// carries the most information, where words the book never uses weigh
// most. It returns "" when the question has no subject words.
func (ans *Answerer) Topic(question string) string {
	fields := strings.FieldsFunc(question, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == ',' || r == '?' || r == '!' || r == ';' || r == ':' || r == '(' || r == ')' || r == '"'
	})
	var best, run []string
	var bestW, runW float64
	flush := func() {
		if runW > bestW {
			best, bestW = append([]string(nil), run...), runW
		}
		run, runW = run[:0], 0
	}
	for _, f := range fields {
		word := strings.Trim(f, ".'’")
		toks := analysis.Tokenize(word)
		if len(toks) == 0 {
			flush()
			continue
		}
		t := toks[0]
		if analysis.Stopwords[t.Word] || analysis.QuestionWords[t.Word] || (ans.book.DF(t.Stem) == 0 && analysis.IsMisspeltFunctionWord(t.Word)) {
			flush()
			continue
		}
		run = append(run, word)
		runW += ans.book.IDF(t.Stem)
	}
	flush()
	return strings.Join(best, " ")
}
