package eval

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/textbook-rag/rag/answer"
)

// CurveBudgets are the wrong-answer budgets, as shares of all questions,
// at which the curve is read: how many worded questions the answerer gets
// right if its threshold is set to answer as much as each budget allows.
// One point on the curve is a choice of threshold; the curve is what the
// answerer can do, and only a change that lifts it is progress.
var CurveBudgets = []float64{0.01, 0.02, 0.03}

// Judged is one question that reached the answerer, as a held-out model
// judges it: the confidence of its pick and whether quoting the pick
// would be scored right.
type Judged struct {
	Confidence float64
	Right      bool
	// Worded: the question is factual, definition, procedural or code,
	// the questions the curve's right answers are counted over.
	Worded bool
}

// CurveBook is one book's questions as the curve counts them.
type CurveBook struct {
	Book, Field string
	// Questions counts all the book's questions (the base of the
	// wrong-answer budget); Worded its worded ones (the base of the
	// right share).
	Questions, Worded int
	Judged            []Judged
}

// CurveBookOf judges one book's labelled questions with model m, as the
// answerer would pick and weigh them. Questions stopped before the
// answerer are refusals at any threshold; so are those about a selection,
// which have a threshold of their own.
func CurveBookOf(l *Labelled, qs []Question, m *answer.Model) CurveBook {
	cb := CurveBook{Book: l.Book, Field: l.field(), Questions: len(qs)}
	cat := map[string]string{}
	for _, q := range qs {
		cat[q.ID] = q.Category
		if worded(q.Category) {
			cb.Worded++
		}
	}
	for _, a := range l.Asked {
		best, conf := m.Judge(a.X, a.Section)
		cb.Judged = append(cb.Judged, Judged{Confidence: conf, Right: a.Correct[best], Worded: worded(cat[a.ID])})
	}
	return cb
}

// RightAt is the largest share of the books' worded questions answered
// right by one threshold on the pooled confidences whose wrong answers
// stay within budget (a share of all the books' questions). Questions of
// equal confidence are answered together.
func RightAt(books []CurveBook, budget float64) float64 {
	var all []Judged
	questions, worded := 0, 0
	for _, b := range books {
		all = append(all, b.Judged...)
		questions += b.Questions
		worded += b.Worded
	}
	if worded == 0 {
		return 0
	}
	slices.SortStableFunc(all, func(a, b Judged) int { return cmp.Compare(b.Confidence, a.Confidence) })
	limit := budget * float64(questions)
	right, wrong, best := 0, 0, 0
	for i := 0; i < len(all); {
		j := i
		for ; j < len(all) && all[j].Confidence == all[i].Confidence; j++ {
			switch {
			case all[j].Right && all[j].Worded:
				right++
			case !all[j].Right:
				wrong++
			}
		}
		if float64(wrong) > limit {
			break
		}
		best, i = right, j
	}
	return float64(best) / float64(worded)
}

// CurveLine is the curve of a judge (and of one field of it, when field
// is not empty) on one line:
//
//	curve leave-one-book-out: ≤1%: 61.2%  ≤2%: 66.0%  ≤3%: 68.9%
func CurveLine(judge, field string, books []CurveBook) string {
	var b strings.Builder
	b.WriteString("curve " + judge)
	if field != "" {
		b.WriteString(" " + field)
	}
	b.WriteString(":")
	for i, budget := range CurveBudgets {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, " ≤%g%%: %.1f%%", budget*100, RightAt(books, budget)*100)
	}
	return b.String()
}

// WriteCurves prints the judge's curve over all the books, then each
// field's, in the order the fields first appear.
func WriteCurves(w io.Writer, judge string, books []CurveBook) error {
	lines := []string{CurveLine(judge, "", books)}
	var fields []string
	for _, b := range books {
		if !slices.Contains(fields, b.Field) {
			fields = append(fields, b.Field)
		}
	}
	for _, f := range fields {
		var in []CurveBook
		for _, b := range books {
			if b.Field == f {
				in = append(in, b)
			}
		}
		lines = append(lines, CurveLine(judge, f, in))
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
}
