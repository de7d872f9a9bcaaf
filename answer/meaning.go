package answer

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/textbook-rag/rag"
)

// Vectors gives texts' unit vectors from a sentence model (package
// vectors caches them, package bert computes them).
type Vectors interface {
	Vectors(ctx context.Context, texts []string) ([][]float32, error)
}

// MeaningFeatures are the signals a sentence model adds: how close in
// meaning the question is to a candidate's heading and to its window.
// Words shared are the other features' business; these see a paraphrase
// ("make a node send messages" of "creating a publisher") that shares
// few. They follow Features in the vector of a model fitted with a
// sentence model (see Model.Meaning).
//
// A window costs an embedding of up to a hundred words, and this runs on
// a CPU in pure Go, so only the meaningRead candidates that state most of
// the question (text_share + heading_share) have their window read;
// headings are short and known ahead, so every candidate's is compared.
var MeaningFeatures = []Feature{
	{"meaning_heading", "the cosine of the question and the candidate's page title and heading"},
	{"meaning_heading_gap", "meaning_heading minus the best among candidates (0 for the best)"},
	{"meaning_window", "the cosine of the question and the candidate's window, for the candidates whose window is read (else 0)"},
	{"meaning_window_gap", "meaning_window minus the best among the windows read (0 for the best; 0 when not read)"},
	{"meaning_unread", "1 when the candidate's window was not read (it states less of the question than meaningRead others)"},
}

const (
	mHeading = iota
	mHeadingGap
	mWindow
	mWindowGap
	mUnread
	nMeaning
)

// meaningRead is how many candidates of a question have their window
// embedded: the right section is among the five that state most of the
// question for most questions that have it at all, and each costs an
// embedding.
const meaningRead = 5

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

// MeaningTexts lists the texts of the book whose vectors every question
// may ask for, to embed ahead (at ingest): each section's title and
// heading. Windows are embedded when a question reads them.
func (ans *Answerer) MeaningTexts() []string {
	var out []string
	seen := map[string]bool{}
	ans.splitAll()
	for _, c := range ans.book.Chunks() {
		units, _ := ans.chunkUnits(c.ID)
		for _, u := range units {
			if h := headingText(c.ChapterTitle, u.heading.Text); !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
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
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	named := func(i int) float64 { return cands[i].x[fText] + cands[i].x[fHeading] }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(named(b), named(a)) })
	read := order[:min(meaningRead, len(order))]
	texts := make([]string, 0, 1+len(cands)+len(read))
	texts = append(texts, question)
	for _, c := range cands {
		u := units[c.w.from]
		texts = append(texts, headingText(chunks[u.chunk].ChapterTitle, u.heading.Text))
	}
	for _, i := range read {
		texts = append(texts, windowText(units, cands[i].w))
	}
	vs, err := ans.meaning.Vectors(context.Background(), texts)
	if err != nil || len(vs) != len(texts) {
		return
	}
	q := vs[0]
	ms := make([][]float64, len(cands))
	bestHeading, bestWindow := -1.0, -1.0
	for i := range cands {
		ms[i] = make([]float64, nMeaning)
		ms[i][mHeading] = dot32(q, vs[1+i])
		ms[i][mUnread] = 1
		bestHeading = max(bestHeading, ms[i][mHeading])
	}
	for k, i := range read {
		ms[i][mWindow] = dot32(q, vs[1+len(cands)+k])
		ms[i][mUnread] = 0
		bestWindow = max(bestWindow, ms[i][mWindow])
	}
	for i := range cands {
		m := ms[i]
		m[mHeadingGap] = m[mHeading] - bestHeading
		if m[mUnread] == 0 {
			m[mWindowGap] = m[mWindow] - bestWindow
		}
		cands[i].x = append(cands[i].x[:nFeatures:nFeatures], m...)
	}
}

// windowText is a window's units, a line each, as the model reads it.
func windowText(units []*unit, w window) string {
	var b strings.Builder
	for i := w.from; i < w.to; i++ {
		if i > w.from {
			b.WriteByte('\n')
		}
		b.WriteString(units[i].text)
	}
	return b.String()
}

// dot32 is the cosine of two unit vectors.
func dot32(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}
