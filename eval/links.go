package eval

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/internal/count"
)

// Links measures the sections the widget offers after an
// insufficient_context refusal ("Where the book discusses this"): on the
// answerable questions (with gold labels) the tutor refused so, how often
// the section that answers is among them.
type Links struct {
	Book string `json:"book"`
	// Limit is how many sections each refusal is offered.
	Limit int `json:"limit"`
	// Refused: answerable questions with gold labels refused with
	// insufficient_context; Offered: those offered at least one section;
	// Gold: those whose gold section is among the sections.
	Refused int `json:"refused"`
	Offered int `json:"offered"`
	Gold    int `json:"gold_among_links"`
	// MustRefuse: questions that must be refused, refused with
	// insufficient_context, so offered sections too; MustRefuseOffered:
	// those the search found any section for.
	MustRefuse        int `json:"must_refuse"`
	MustRefuseOffered int `json:"must_refuse_offered"`
}

// Rate is the share of the refused answerable questions whose gold
// section is among the links.
func (l Links) Rate() float64 {
	return share(l.Gold, l.Refused)
}

// LinksOf searches, as the widget does, for every question of rep the
// tutor refused with insufficient_context, and counts the refused
// answerable questions whose gold section (gold_chapter and gold_heading,
// matched as an answer's sources are) is among the limit sections found.
//
// Only sections scoring floor or more are offered, as the widget asks for
// them (confident=1: the tutor's confident threshold).
func LinksOf(ctx context.Context, book string, s rag.Searcher, limit int, floor float64, qs []Question, rep *Report, chunk func(id string) (rag.Chunk, bool)) (Links, error) {
	l := Links{Book: book, Limit: limit}
	byID := make(map[string]Question, len(qs))
	for _, q := range qs {
		byID[q.ID] = q
	}
	for _, r := range rep.Results {
		q, ok := byID[r.ID]
		if !ok || r.Got != "refuse" || r.RefusalReason != string(rag.InsufficientContext) {
			continue
		}
		answerable := q.Expect == "answer" && q.SelectedText == "" && q.GoldChapter != ""
		if !answerable && q.Expect != "refuse" {
			continue
		}
		hits, err := s.Search(ctx, q.Question, limit)
		if err != nil {
			return l, fmt.Errorf("%s: search: %w", q.ID, err)
		}
		hits = slices.DeleteFunc(hits, func(h rag.SectionHit) bool { return h.Score < floor })
		if !answerable {
			l.MustRefuse++
			if len(hits) > 0 {
				l.MustRefuseOffered++
			}
			continue
		}
		l.Refused++
		if len(hits) == 0 {
			continue
		}
		l.Offered++
		sources := make([]rag.Source, len(hits))
		for i, h := range hits {
			sources[i] = rag.Source{ChunkID: h.ChunkID, SectionHeading: h.Heading, Anchor: h.Anchor}
		}
		if hasGoldSource(q, sources, chunk) {
			l.Gold++
		}
	}
	return l, nil
}

// WriteLinksTable prints one row per book and, for several, the total.
func WriteLinksTable(w io.Writer, rows []Links) error {
	sw := &stickyWriter{w: w}
	t := newTable()
	fmt.Fprintln(t, "book\trefused answerable (insufficient_context)\toffered sections\tgold section among them\tmust-refuse offered sections")
	for _, r := range rows {
		writeLinksRow(t, r.Book, r)
	}
	if len(rows) > 1 {
		writeLinksRow(t, "all", total(rows))
	}
	t.flush(sw)
	if len(rows) > 0 {
		fmt.Fprintf(sw, "(at most %s a refusal, as the widget shows)\n", count.Of(rows[0].Limit, "section"))
	}
	return sw.err
}

func writeLinksRow(w io.Writer, book string, r Links) {
	fmt.Fprintf(w, "%s\t%d\t%d\t%d %s\t%d/%d\n", book, r.Refused, r.Offered, r.Gold, pct(r.Rate()), r.MustRefuseOffered, r.MustRefuse)
}
