package eval

import (
	"fmt"
	"io"
	"sort"

	"github.com/textbook-rag/rag/answer"
)

// Split says where a book's worded questions end, as the answerer sees
// them: stopped by the score gates before it, reaching it without a
// right candidate, with a right candidate it does not pick, or with a
// right pick that it answers or refuses by its threshold. It is the
// measure of where answers are lost: each stage bounds the next.
type Split struct {
	Book   string `json:"book"`
	Worded int    `json:"worded"`
	// Gates: stopped before the answerer (score gates, out-of-scope).
	Gates int `json:"gates"`
	// NoRight: reached the answerer, no candidate would be right;
	// GoldShort of them have a candidate at the gold section whose quote
	// lacks an answer term.
	NoRight   int `json:"no_right_candidate"`
	GoldShort int `json:"gold_quote_short"`
	// Missed: a right candidate exists but another section is picked;
	// Second counts those whose right section ranks second.
	Missed int `json:"right_not_picked"`
	Second int `json:"right_second"`
	// Picked: the pick is right; Answered of them reach the threshold.
	Picked   int `json:"right_pick"`
	Answered int `json:"answered"`
	// Wrong: worded questions whose wrong pick reaches the threshold.
	Wrong int `json:"wrong"`
}

// SplitOf works out the split of one book's worded questions under model
// m. qs are the book's questions, l its labelled candidates.
func SplitOf(l *Labelled, qs []Question, m *answer.Model) Split {
	s := Split{Book: l.Book}
	asked := map[string]Asked{}
	for _, a := range l.Asked {
		asked[a.ID] = a
	}
	for _, q := range qs {
		if !worded(q.Category) {
			continue
		}
		s.Worded++
		a, ok := asked[q.ID]
		if !ok {
			s.Gates++
			continue
		}
		probs := m.Probs(a.X)
		best, p := m.Pick(a.X, probs, a.Section)
		answers := p >= m.Threshold
		switch {
		case a.Correct[best]:
			s.Picked++
			if answers {
				s.Answered++
			}
			continue
		case !anyTrue(a.Correct):
			s.NoRight++
			if anyTrue(a.AtGold) {
				s.GoldShort++
			}
		default:
			s.Missed++
			if rankOfRight(probs, a.Section, a.Correct) == 2 {
				s.Second++
			}
		}
		if answers {
			s.Wrong++
		}
	}
	return s
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// rankOfRight is the rank (from 1) of the best right section among the
// sections ordered by their summed probability, as Pick orders them.
func rankOfRight(probs []float64, sections []string, correct []bool) int {
	sum := map[string]float64{}
	right := map[string]bool{}
	for i, p := range probs {
		sum[sections[i]] += p
		right[sections[i]] = right[sections[i]] || correct[i]
	}
	names := make([]string, 0, len(sum))
	for n := range sum {
		names = append(names, n)
	}
	sort.SliceStable(names, func(a, b int) bool {
		if sum[names[a]] != sum[names[b]] {
			return sum[names[a]] > sum[names[b]]
		}
		return names[a] < names[b]
	})
	for i, n := range names {
		if right[n] {
			return i + 1
		}
	}
	return 0
}

// WriteSplitTable prints one row per book and the total: the share of
// worded questions at each stage.
func WriteSplitTable(w io.Writer, rows []Split) error {
	sw := &stickyWriter{w: w}
	t := newTable()
	fmt.Fprintln(t, "book\tworded\tgates\tno right candidate (gold, short quote)\tright not picked (2nd)\tright pick\tanswered\twrong")
	tot := total(rows)
	tot.Book = "total"
	for _, r := range append(rows, tot) {
		share := func(n int) string { return fmt.Sprintf("%d %s", n, pct(float64(n)/float64(max(r.Worded, 1)))) }
		fmt.Fprintf(t, "%s\t%d\t%s\t%s (%d)\t%s (%d)\t%s\t%s\t%d\n", r.Book, r.Worded, share(r.Gates), share(r.NoRight), r.GoldShort,
			share(r.Missed), r.Second, share(r.Picked), share(r.Answered), r.Wrong)
	}
	t.flush(sw)
	return sw.err
}
