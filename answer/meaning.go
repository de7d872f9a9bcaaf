package answer

import (
	"context"
	"fmt"
	"math"

	"github.com/textbook-rag/rag"
)

// Vectors gives texts' unit vectors from a sentence model (package
// vectors caches them, package bert computes them): the book's texts,
// embedded once and kept, and a question's, embedded when asked.
type Vectors interface {
	Vectors(ctx context.Context, texts []string) ([][]float32, error)
	Query(ctx context.Context, question string) ([]float32, error)
}

// MeaningFeatures are the signals a sentence model adds: how close in
// meaning the question is to a candidate's heading and to its window.
// Words shared are the other features' business; these see a paraphrase
// ("make a node send messages" of "creating a publisher") that shares
// few. They follow Features in the vector of a model fitted with a
// sentence model (see Model.Meaning).
//
// Every text they compare a question with is the book's own and known
// ahead: a section's heading, and each unit (sentence, item, row, code
// block) of its window, a window's vector being the mean of its units'.
// So the book is embedded once, at ingest (MeaningTexts), and a question
// costs one embedding, its own.
var MeaningFeatures = []Feature{
	{"meaning_heading", "the cosine of the question and the candidate's page title and heading"},
	{"meaning_heading_gap", "meaning_heading minus the best among candidates (0 for the best)"},
	{"meaning_window", "the cosine of the question and the candidate's window (the mean of its units' vectors)"},
	{"meaning_window_gap", "meaning_window minus the best among candidates (0 for the best)"},
	{"meaning_unit", "the largest cosine of the question and one unit of the candidate's window: the sentence, item or row that says it"},
	{"meaning_unit_gap", "meaning_unit minus the best among candidates (0 for the best)"},
}

const (
	mHeading = iota
	mHeadingGap
	mWindow
	mWindowGap
	mUnit
	mUnitGap
	nMeaning
)

// SetMeaning makes the answerer work out the meaning features with v.
// An answerer on the embedded word-only model moves to the embedded
// model fitted with a sentence model; when that cannot be read, it says
// so and goes on weighing words (a fit still sees the features).
func (ans *Answerer) SetMeaning(v Vectors) error {
	ans.meaning = v
	m, err := defaultMeaningModel()
	if err != nil {
		return fmt.Errorf("the embedded model fitted with a sentence model: %w", err)
	}
	if ans.model == DefaultModel() {
		ans.model = m
	}
	return nil
}

// MeaningTexts lists the texts of the book a question is compared with,
// to embed ahead (at ingest): each section's title and heading, and
// every unit.
func (ans *Answerer) MeaningTexts() []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	ans.splitAll()
	for _, c := range ans.book.Chunks() {
		units, _ := ans.chunkUnits(c.ID)
		for _, u := range units {
			add(headingText(c.ChapterTitle, u.heading.Text))
		}
		for _, u := range units {
			add(u.text)
		}
	}
	return out
}

// headingText is what a section is called on the page: its page's title
// and its heading.
func headingText(title, heading string) string {
	if heading == "" || heading == title {
		return title
	}
	return title + ": " + heading
}

// addMeaning appends the meaning features to each candidate's vector.
// When the vectors cannot be had the features are left out, and the
// answerer weighs words alone for this question.
func (ans *Answerer) addMeaning(ctx context.Context, question string, units []*unit, chunks []rag.ScoredChunk, cands []candidate) {
	if len(cands) == 0 {
		return
	}
	// The book's texts in one call: each candidate's heading, then the
	// units of the windows, each text once.
	var texts []string
	at := map[string]int{}
	index := func(s string) int {
		i, ok := at[s]
		if !ok {
			i = len(texts)
			at[s] = i
			texts = append(texts, s)
		}
		return i
	}
	heads := make([]int, len(cands))
	for i, c := range cands {
		u := units[c.w.from]
		heads[i] = index(headingText(chunks[u.chunk].ChapterTitle, u.heading.Text))
	}
	wins := make([][]int, len(cands))
	for i, c := range cands {
		for k := c.w.from; k < c.w.to; k++ {
			wins[i] = append(wins[i], index(units[k].text))
		}
	}
	q, err := ans.meaning.Query(ctx, question)
	if err != nil {
		return
	}
	vs, err := ans.meaning.Vectors(ctx, texts)
	if err != nil || len(vs) != len(texts) {
		return
	}
	ms := make([][]float64, len(cands))
	bestHeading, bestWindow, bestUnit := -1.0, -1.0, -1.0
	for i := range cands {
		ms[i] = make([]float64, nMeaning)
		ms[i][mHeading] = dot32(q, vs[heads[i]])
		ms[i][mWindow] = meanCosine(q, vs, wins[i])
		ms[i][mUnit] = -1
		for _, k := range wins[i] {
			ms[i][mUnit] = max(ms[i][mUnit], dot32(q, vs[k]))
		}
		bestHeading = max(bestHeading, ms[i][mHeading])
		bestWindow = max(bestWindow, ms[i][mWindow])
		bestUnit = max(bestUnit, ms[i][mUnit])
	}
	for i := range cands {
		m := ms[i]
		m[mHeadingGap] = m[mHeading] - bestHeading
		m[mWindowGap] = m[mWindow] - bestWindow
		m[mUnitGap] = m[mUnit] - bestUnit
		cands[i].x = append(cands[i].x[:nFeatures:nFeatures], m...)
	}
}

// meanCosine is the cosine of q and the mean of the vectors at idx: a
// window's meaning as the sum of its units'.
func meanCosine(q []float32, vs [][]float32, idx []int) float64 {
	var dot, norm float64
	sum := make([]float64, len(q))
	for _, i := range idx {
		for d, x := range vs[i] {
			sum[d] += float64(x)
		}
	}
	for d, x := range sum {
		dot += x * float64(q[d])
		norm += x * x
	}
	if norm == 0 {
		return 0
	}
	return dot / math.Sqrt(norm)
}

// dot32 is the cosine of two unit vectors.
func dot32(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}
