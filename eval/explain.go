package eval

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/extractive"
)

// ExplainQuestion is the question asked of each selection when measuring
// what the book adds to a selection a reader only points at.
const ExplainQuestion = "What does this mean?"

// Explained measures what the tutor adds to a selection when the question
// only points at it: the selections of a book's selected_sufficient
// questions, each asked ExplainQuestion. The labelled books hold almost
// no such question, so the measure asks one of every labelled selection.
type Explained struct {
	Book string `json:"book"`
	// Selections asked; Refused: those refused (a selection a question
	// only points at is its own evidence: none should be).
	Selections int `json:"selections"`
	Refused    int `json:"refused"`
	// LeadIn, Definition: answers quoting the sentences that lead into
	// the selection, a definition of one of its terms from elsewhere in
	// the book; Either: one or both; NothingMore: answers saying that the
	// book holds nothing more.
	LeadIn     int `json:"lead_in"`
	Definition int `json:"definition"`
	Either     int `json:"either"`
	// Related: answers linking other sections that discuss the selection.
	Related     int `json:"related"`
	NothingMore int `json:"nothing_more"`
	// Whole: answers that still hold every answer term of the labelled
	// question, as the selection does.
	Whole int `json:"whole"`
}

// Rate is the share of the selections the book adds a lead-in or a
// definition to.
func (e Explained) Rate() float64 {
	return share(e.Either, e.Selections)
}

// ExplainedOf asks ExplainQuestion of the selection of every
// selected_sufficient question and reads what each answer quotes, by the
// lines the extractive answer gives its parts.
func ExplainedOf(ctx context.Context, book string, t rag.Tutor, qs []Question) (Explained, error) {
	e := Explained{Book: book}
	for _, q := range qs {
		if q.Category != "selected_sufficient" {
			continue
		}
		id := q.ID + "/explain"
		req := rag.ChatRequest{Question: ExplainQuestion, SelectedText: q.SelectedText, SessionID: sessionID(id)}
		if err := req.Normalize(); err != nil {
			return e, fmt.Errorf("%s: %w", id, err)
		}
		resp, err := t.Ask(ctx, req, nil)
		if err != nil {
			return e, fmt.Errorf("%s: %w", id, err)
		}
		e.Selections++
		if resp.WasRefusal {
			e.Refused++
			continue
		}
		lead := hasPart(resp.Answer, extractive.LeadInTitle)
		def := hasPart(resp.Answer, extractive.DefinitionTitle)
		if hasPart(resp.Answer, extractive.RelatedTitle) {
			e.Related++
		}
		if lead {
			e.LeadIn++
		}
		if def {
			e.Definition++
		}
		if lead || def {
			e.Either++
		}
		if resp.Answer == extractive.NothingMore || strings.HasSuffix(resp.Answer, "\n\n"+extractive.NothingMore) {
			e.NothingMore++
		}
		if missingTerm(resp.Answer, q.AnswerTerms) == "" {
			e.Whole++
		}
	}
	return e, nil
}

// hasPart reports whether an answer holds a part under title: first, or
// after another part.
func hasPart(answer, title string) bool {
	return strings.HasPrefix(answer, title) || strings.Contains(answer, "\n\n"+title)
}

// WriteExplainedTable prints one row per book and, for several, the
// total.
func WriteExplainedTable(w io.Writer, rows []Explained) error {
	sw := &stickyWriter{w: w}
	t := newTable()
	fmt.Fprintf(t, "book\tselections (%q)\trefused\tlead-in\tdefinition\tlead-in or definition\trelated sections\tnothing more\tanswer terms kept\n", ExplainQuestion)
	for _, r := range rows {
		writeExplainedRow(t, r.Book, r)
	}
	if len(rows) > 1 {
		writeExplainedRow(t, "all", total(rows))
	}
	t.flush(sw)
	return sw.err
}

func writeExplainedRow(w io.Writer, book string, r Explained) {
	fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d %s\t%d\t%d\t%d/%d\n", book, r.Selections, r.Refused, r.LeadIn, r.Definition, r.Either, pct(r.Rate()), r.Related, r.NothingMore, r.Whole, r.Selections)
}
