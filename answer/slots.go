package answer

import "github.com/textbook-rag/rag/analysis"

// slots numbers the stems a query's coverage looks up (its terms and
// their related stems), so that scoring many units, and windows of them,
// reads slices instead of maps.
type slots struct {
	stems   []string
	term    []int   // slot of q.Terms[i]
	related [][]int // slot of q.Terms[i].Related[r]
}

func newSlots(q *analysis.Query) slots {
	var sl slots
	at := map[string]int{}
	slot := func(s string) int {
		k, ok := at[s]
		if !ok {
			k = len(sl.stems)
			at[s] = k
			sl.stems = append(sl.stems, s)
		}
		return k
	}
	sl.term = make([]int, len(q.Terms))
	sl.related = make([][]int, len(q.Terms))
	for i, t := range q.Terms {
		sl.term[i] = slot(t.Stem)
		for _, r := range t.Related {
			sl.related[i] = append(sl.related[i], slot(r.Stem))
		}
	}
	return sl
}

// coverageOf is q's Coverage with v[k] the match of stem slot k.
func coverageOf(q *analysis.Query, sl slots, v []float64) float64 {
	if q.Total == 0 {
		return 0
	}
	var got float64
	for i, t := range q.Terms {
		m := v[sl.term[i]]
		if m < 1 {
			for r, k := range sl.related[i] {
				if x := v[k] * t.Related[r].Strength; x > m {
					m = x
				}
			}
		}
		got += t.Weight * m
	}
	return got / q.Total
}
