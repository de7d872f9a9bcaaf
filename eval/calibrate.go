package eval

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/internal/count"
)

// Calibration is how a retriever's best scores spread over questions that
// must be answered and questions that must be refused, and what pairs of
// thresholds would make of them. The spec's 0.5/0.7 were chosen for one
// embedding model; another retriever may need other values.
type Calibration struct {
	Answerable []float64 `json:"answerable"` // best score per answerable question
	Refuse     []float64 `json:"refuse"`     // best score per must-refuse question
	Grid       []Pair    `json:"grid"`
	Best       Pair      `json:"recommended"`
	// Bands is the reliability table: what a top score in each band
	// means on this book.
	Bands []Band `json:"reliability"`
	// Skipped counts the questions with selected text, which retrieve
	// nothing and so are left out.
	Skipped int `json:"skipped_selected_text"`
	// GoldInTopK counts the answerable questions whose answering section
	// is among the retrieved chunks at all, for the ranking's recall.
	GoldInTopK, GoldTop1 int
}

// Band is one row of the reliability table: the questions whose best
// chunk scored in [From, To), and how many of those best chunks lie in the
// section that answers the question. Must-refuse questions have no such
// section, so their best chunk never holds the answer. On a well
// calibrated retriever Holds/Questions rises with the band, and passes
// one half at the confident threshold.
type Band struct {
	From      float64 `json:"from"`
	To        float64 `json:"to"`
	Questions int     `json:"questions"`
	Holds     int     `json:"top_chunk_holds_answer"`
	Refuse    int     `json:"must_refuse"`
}

// bandEdges are the reliability table's score bands.
var bandEdges = []float64{0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001}

// holdsAnswer reports whether a chunk lies in the section a question's
// gold labels name (FORMAT.md's gold_chapter and gold_heading).
func holdsAnswer(q Question, c rag.Chunk) bool {
	if q.GoldChapter == "" || c.ChapterPath != strings.TrimSpace(q.GoldChapter) {
		return false
	}
	gold := normHeading(q.GoldHeading)
	if normHeading(c.SectionHeading) == gold {
		return true
	}
	for _, h := range c.Headings {
		if normHeading(h.Text) == gold {
			return true
		}
	}
	return false
}

// Pair is one choice of thresholds and its outcome.
type Pair struct {
	Empty     float64 `json:"empty_threshold"`
	Confident float64 `json:"confident_threshold"`
	// AnswerPass: share of answerable questions whose best score reaches
	// the confident threshold (they go on to be answered).
	AnswerPass float64 `json:"answerable_pass"`
	// RefuseStop: share of must-refuse questions the score gates stop.
	RefuseStop float64 `json:"refuse_stopped"`
	// EmptyShare: share of must-refuse questions below the empty threshold.
	EmptyShare float64 `json:"refuse_empty"`
}

// MinRefuseStop is the recommendation's constraint: the gates alone must
// stop this share of the questions that must be refused.
const MinRefuseStop = 0.8

// Calibrate runs the questions without selected text through the
// retriever. It recommends the pair that passes the most answerable
// questions while the gates stop at least MinRefuseStop of the rest; the
// evidence check and the out-of-scope patterns refuse more after the gates.
func Calibrate(ctx context.Context, r rag.Retriever, qs []Question, k int) (*Calibration, error) {
	c := &Calibration{}
	for i := range len(bandEdges) - 1 {
		c.Bands = append(c.Bands, Band{From: bandEdges[i], To: min(1, bandEdges[i+1])})
	}
	for _, q := range qs {
		if q.SelectedText != "" {
			c.Skipped++
			continue
		}
		res, err := r.Retrieve(ctx, q.Question, k)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.ID, err)
		}
		best, top := 0.0, -1
		for i, x := range res {
			if x.Score > best {
				best, top = x.Score, i
			}
		}
		if q.Expect == "answer" {
			c.Answerable = append(c.Answerable, best)
			for i, x := range res {
				if holdsAnswer(q, x.Chunk) {
					c.GoldInTopK++
					if i == top {
						c.GoldTop1++
					}
					break
				}
			}
		} else {
			c.Refuse = append(c.Refuse, best)
		}
		for i := range c.Bands {
			b := &c.Bands[i]
			if best >= bandEdges[i] && best < bandEdges[i+1] {
				b.Questions++
				if q.Expect != "answer" {
					b.Refuse++
				} else if top >= 0 && holdsAnswer(q, res[top].Chunk) {
					b.Holds++
				}
			}
		}
	}
	sort.Float64s(c.Answerable)
	sort.Float64s(c.Refuse)
	share := func(xs []float64, keep func(float64) bool) float64 {
		if len(xs) == 0 {
			return 0
		}
		n := 0
		for _, x := range xs {
			if keep(x) {
				n++
			}
		}
		return float64(n) / float64(len(xs))
	}
	found := false
	for e := 20; e <= 90; e += 5 {
		for f := e; f <= 90; f += 5 {
			p := Pair{Empty: float64(e) / 100, Confident: float64(f) / 100}
			p.AnswerPass = share(c.Answerable, func(x float64) bool { return x >= p.Confident })
			p.RefuseStop = share(c.Refuse, func(x float64) bool { return x < p.Confident })
			p.EmptyShare = share(c.Refuse, func(x float64) bool { return x < p.Empty })
			c.Grid = append(c.Grid, p)
			better := !found || p.AnswerPass > c.Best.AnswerPass ||
				p.AnswerPass == c.Best.AnswerPass && (p.Confident > c.Best.Confident ||
					p.Confident == c.Best.Confident && p.Empty > c.Best.Empty)
			if p.RefuseStop >= MinRefuseStop && p.Confident-p.Empty >= 0.1-1e-9 && better {
				c.Best, found = p, true
			}
		}
	}
	return c, nil
}

func quantiles(xs []float64) string {
	if len(xs) == 0 {
		return "(none)"
	}
	q := func(p float64) float64 { return xs[int(p*float64(len(xs)-1))] }
	return fmt.Sprintf("min %.2f  p25 %.2f  median %.2f  p75 %.2f  max %.2f  (n=%d)", xs[0], q(0.25), q(0.5), q(0.75), xs[len(xs)-1], len(xs))
}

// WriteText prints the distributions, the outcome table for the pairs
// around the spec's and the recommended ones, and the recommendation.
func (c *Calibration) WriteText(w io.Writer) error {
	fmt.Fprintln(w, "best score per question")
	fmt.Fprintln(w, "  answerable:  ", quantiles(c.Answerable))
	fmt.Fprintln(w, "  must refuse: ", quantiles(c.Refuse))
	if c.Skipped > 0 {
		fmt.Fprintf(w, "  (%s with selected text left out: they retrieve nothing)\n", count.Of(c.Skipped, "question"))
	}
	if n := len(c.Answerable); n > 0 {
		fmt.Fprintf(w, "  answering section retrieved: %d of %d answerable (%d as the best chunk)\n", c.GoldInTopK, n, c.GoldTop1)
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "reliability: what the best chunk's score means")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "best score\tquestions\tmust refuse\tbest chunk answers\tat or above\t")
	share := func(holds, n int) string {
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%5.1f%%", 100*float64(holds)/float64(n))
	}
	for i, b := range c.Bands {
		var holds, n int
		for _, above := range c.Bands[i:] {
			holds += above.Holds
			n += above.Questions
		}
		fmt.Fprintf(tw, "%.2f-%.2f\t%d\t%d\t%s\t%s\t\n", b.From, b.To, b.Questions, b.Refuse, share(b.Holds, b.Questions), share(holds, n))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "  best chunk answers: share of the band's questions whose best chunk lies in the section")
	fmt.Fprintln(w, "  labelled as answering them (must-refuse questions have none); at or above: the same")
	fmt.Fprintln(w, "  for every question whose best score is at least the band's lower edge. From the")
	fmt.Fprintln(w, "  confident threshold up it should be more than half.")
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "empty\tconfident\tanswerable pass\trefuse stopped\trefuse < empty\t")
	for _, p := range c.Grid {
		if p.Confident-p.Empty > 0.21 || p.Confident-p.Empty < 0.09 {
			continue // the table shows pairs about 0.1-0.2 apart, like the spec's
		}
		mark := ""
		switch {
		case p == c.Best:
			mark = "  <- recommended"
		case p.Empty == 0.5 && p.Confident == 0.7:
			mark = "  <- spec default"
		}
		fmt.Fprintf(tw, "%.2f\t%.2f\t%5.1f%%\t%5.1f%%\t%5.1f%%\t%s\n", p.Empty, p.Confident, 100*p.AnswerPass, 100*p.RefuseStop, 100*p.EmptyShare, mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "  answerable pass: share of answerable questions whose best score reaches the confident")
	fmt.Fprintln(w, "  threshold (they go on to the evidence check and may be answered); refuse stopped: share")
	fmt.Fprintln(w, "  of must-refuse questions the two score gates refuse; refuse < empty: share of them below")
	fmt.Fprintln(w, "  the empty threshold (refused as empty_retrieval rather than insufficient_context).")
	fmt.Fprintf(w, "\nrecommended: --empty-threshold %.2f --confident-threshold %.2f (passes %.0f%% of answerable questions; the gates stop %.0f%% of must-refuse ones, the evidence check and out-of-scope patterns the rest)\n",
		c.Best.Empty, c.Best.Confident, 100*c.Best.AnswerPass, 100*c.Best.RefuseStop)
	return nil
}
