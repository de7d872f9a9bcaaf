package answer

import (
	"context"
	"fmt"
	"slices"

	"github.com/textbook-rag/rag"
)

// Vectors gives texts' unit vectors from a sentence model (package
// vectors caches them, package bert computes them).
type Vectors interface {
	Vectors(ctx context.Context, texts []string) ([][]float32, error)
}

// MeaningFeatures are the signals a sentence model adds: how close in
// meaning the question is to a candidate's section, window and heading.
// Words shared are the other features' business; these see a paraphrase
// ("make a node send messages" of "creating a publisher") that shares
// few. They follow Features in the vector of a model fitted with a
// sentence model (see Model.Meaning).
var MeaningFeatures = []Feature{
	{"meaning_section", "the cosine of the question and the closest unit of the candidate's section"},
	{"meaning_window", "the cosine of the question and the closest unit of the candidate's window"},
	{"meaning_heading", "the cosine of the question and the candidate's page title and heading"},
	{"meaning_section_gap", "meaning_section minus the best among candidates (0 for the best)"},
	{"meaning_heading_gap", "meaning_heading minus the best among candidates (0 for the best)"},
}

const (
	mSection = iota
	mWindow
	mHeading
	mSectionGap
	mHeadingGap
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

// MeaningTexts lists every text of the book whose vector the answerer
// may ask for: each unit's text and each section's title and heading.
// Embedding them ahead (at ingest) keeps a question's cost to one text.
func (ans *Answerer) MeaningTexts() []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, c := range ans.book.Chunks() {
		for _, u := range ans.units[c.ID] {
			add(u.text)
			add(headingText(c.ChapterTitle, u.heading.Text))
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
func (ans *Answerer) addMeaning(question string, units []*unit, chunks []rag.ScoredChunk, cands []candidate) {
	if len(cands) == 0 {
		return
	}
	texts := make([]string, 0, 1+2*len(units))
	texts = append(texts, question)
	for _, u := range units {
		texts = append(texts, u.text)
	}
	for _, u := range units {
		texts = append(texts, headingText(chunks[u.chunk].ChapterTitle, u.heading.Text))
	}
	vs, err := ans.meaning.Vectors(context.Background(), texts)
	if err != nil || len(vs) != len(texts) {
		return
	}
	q := vs[0]
	unitSim := make([]float64, len(units))
	headSim := make([]float64, len(units))
	for i := range units {
		unitSim[i] = dot32(q, vs[1+i])
		headSim[i] = dot32(q, vs[1+len(units)+i])
	}
	bestSection, bestHeading := -1.0, -1.0
	for i := range cands {
		c := &cands[i]
		m := make([]float64, nMeaning)
		k := keyOf(units[c.w.from])
		m[mSection] = -1
		for j, u := range units {
			if keyOf(u) == k {
				m[mSection] = max(m[mSection], unitSim[j])
			}
		}
		m[mWindow] = slices.Max(unitSim[c.w.from:c.w.to])
		m[mHeading] = headSim[c.w.from]
		bestSection = max(bestSection, m[mSection])
		bestHeading = max(bestHeading, m[mHeading])
		c.x = append(c.x[:nFeatures:nFeatures], m...)
	}
	for i := range cands {
		x := cands[i].x[nFeatures:]
		x[mSectionGap] = x[mSection] - bestSection
		x[mHeadingGap] = x[mHeading] - bestHeading
	}
}

// dot32 is the cosine of two unit vectors.
func dot32(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}
