package tutor

import (
	"strings"
	"unicode"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

// SelectionExplainer is an EvidenceFinder that also knows what the rest
// of the book adds to a reader's selection (package answer's is one). A
// question that only points at the selection ("What does this mean?")
// gets the whole selection as its evidence, which the extractive answer
// does not repeat: it quotes how the book defines the selection's key
// terms elsewhere and the sentences that lead into it, and links the
// other sections that develop the same idea, or says that the book holds
// nothing more. Whether the selection answers is still judged on the selection
// alone.
type SelectionExplainer interface {
	// ExplainSelection returns the book's help with the selection, and
	// false for a question that asks something of the selection.
	ExplainSelection(question *analysis.Question, selected string) (rag.Explanation, bool)
}

// explain returns the book's help with a selection that the question
// only points at, or nil: for any other question, or an evidence finder
// that cannot explain. A language model is given the selection alone, as
// the refusal spec's selected-text mode says; the explanation is quoted
// by the extractive answer (the model's fallback too).
func (t *Tutor) explain(q *analysis.Question, selected string) *rag.Explanation {
	x, ok := t.Evidence.(SelectionExplainer)
	if !ok {
		return nil
	}
	e, ok := x.ExplainSelection(q, selected)
	if !ok {
		return nil
	}
	return &e
}

// junk reports a selection with no word in it ("[[[[…", a run of
// symbols): there is nothing to explain, and it is refused, not echoed.
func junk(selected string) bool {
	return !strings.ContainsFunc(selected, unicode.IsLetter)
}
