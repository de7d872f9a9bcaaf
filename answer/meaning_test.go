package answer

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

// wordVectors is a stand-in sentence model: a text's vector marks which
// of a few words it uses, so the test knows each cosine's order.
type wordVectors struct {
	calls     int
	asked     []string
	questions []string
	fail      bool
}

var vectorWords = []string{"topic", "channel", "service", "imu", "lidar"}

func (w *wordVectors) Vectors(_ context.Context, texts []string) ([][]float32, error) {
	if w.fail {
		return nil, errors.New("model down")
	}
	w.calls++
	w.asked = append(w.asked, texts...)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, len(vectorWords)+1)
		v[len(vectorWords)] = 0.1 // no text is orthogonal to every other
		var n float32 = 0.01
		for j, word := range vectorWords {
			if strings.Contains(strings.ToLower(t), word) {
				v[j] = 1
				n++
			}
		}
		for j := range v {
			v[j] /= n
		}
		out[i] = normalize(v)
	}
	return out, nil
}

func (w *wordVectors) Query(ctx context.Context, question string) ([]float32, error) {
	w.questions = append(w.questions, question)
	vs, err := w.Vectors(ctx, []string{question})
	if err != nil {
		return nil, err
	}
	w.calls--
	w.asked = w.asked[:len(w.asked)-1]
	return vs[0], nil
}

func normalize(v []float32) []float32 {
	var s float32
	for _, x := range v {
		s += x * x
	}
	if s == 0 {
		return v
	}
	inv := 1 / sqrt32(s)
	for i := range v {
		v[i] *= inv
	}
	return v
}

func sqrt32(x float32) float32 {
	r := x
	for range 30 {
		r = (r + x/r) / 2
	}
	return r
}

func allScored() []rag.ScoredChunk {
	all := make([]rag.ScoredChunk, len(testChunks))
	for i, c := range testChunks {
		all[i] = rag.ScoredChunk{Chunk: c, Score: 0.9}
	}
	return all
}

func TestMeaningFeatures(t *testing.T) {
	ans := newAnswerer(testChunks)
	v := &wordVectors{}
	ans.SetMeaning(v)
	all := allScored()
	cands := ans.Candidates(t.Context(), ans.Read("What is a topic?"), all)
	if len(cands) == 0 {
		t.Fatal("no candidates")
	}
	if v.calls != 1 {
		t.Errorf("%d calls for one question, want one batch", v.calls)
	}
	if len(v.questions) != 1 || v.questions[0] != "What is a topic?" {
		t.Errorf("questions embedded: %q, want the question once", v.questions)
	}
	bestHeading := false
	for _, c := range cands {
		if len(c.Features) != nFeatures+nMeaning {
			t.Fatalf("%d features, want %d", len(c.Features), nFeatures+nMeaning)
		}
		m := c.Features[nFeatures:]
		if m[mHeadingGap] > 0 || m[mWindowGap] > 0 || m[mUnitGap] > 0 {
			t.Errorf("%s: a gap above 0: %v", c.Section, m)
		}
		if m[mHeadingGap] == 0 && strings.Contains(c.Section, "Topics") {
			bestHeading = true
		}
		// Every candidate's window is read: its units are the book's.
		if m[mWindow] == 0 {
			t.Errorf("%s: no window meaning: %v", c.Section, m)
		}
	}
	// Each text once: the question, the headings and the windows' units,
	// every one of them a text MeaningTexts embeds ahead.
	ahead := map[string]bool{}
	for _, s := range ans.MeaningTexts() {
		ahead[s] = true
	}
	seen := map[string]bool{}
	for _, s := range v.asked {
		if seen[s] {
			t.Errorf("%q asked twice", s)
		}
		seen[s] = true
		if !ahead[s] {
			t.Errorf("%q is not among the texts embedded at ingest: the question would embed it", s)
		}
	}
	if !bestHeading {
		t.Error("the Topics heading is not the closest in meaning to a question about topics")
	}
}

func TestMeaningFailureFallsBackToWords(t *testing.T) {
	ans := newAnswerer(testChunks)
	ans.SetMeaning(&wordVectors{fail: true})
	all := allScored()
	for _, c := range ans.Candidates(t.Context(), ans.Read("What is a topic?"), all) {
		if len(c.Features) != nFeatures {
			t.Fatalf("%d features without vectors, want the %d word features", len(c.Features), nFeatures)
		}
	}
	// The answerer still weighs the candidates (with the word-only model).
	_, _, cands := ans.prepare(t.Context(), ans.Read("What is a topic?"), all)
	if best := ans.best(cands); best == nil {
		t.Fatal("no pick when the sentence model fails")
	}
}

func TestMeaningModelValidates(t *testing.T) {
	m := ZeroModel()
	n := nFeatures + nMeaning
	m.Features = MeaningFeatureNames()
	m.Mean, m.Scale, m.Weights = make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range m.Scale {
		m.Scale[i] = 1
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("a model with the meaning features: %v", err)
	}
	if !m.Meaning() || ZeroModel().Meaning() {
		t.Error("Meaning() does not tell the two models apart")
	}
	m.Features[nFeatures] = "meaning_elsewhere"
	if err := m.Validate(); err == nil {
		t.Error("a model with an unknown meaning feature validates")
	}
}

// ctxVectors fails when the request's context has ended, as a real
// model's embedding does.
type ctxVectors struct{ wordVectors }

func (c *ctxVectors) Query(ctx context.Context, q string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.wordVectors.Query(ctx, q)
}

// TestMeaningTakesTheRequestsContext: the question's embedding runs
// under the request's context, so a request that ended embeds nothing
// and the answerer weighs words alone.
func TestMeaningTakesTheRequestsContext(t *testing.T) {
	ans := newAnswerer(testChunks)
	v := &ctxVectors{}
	ans.SetMeaning(v)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, c := range ans.Candidates(ctx, ans.Read("What is a topic?"), allScored()) {
		if len(c.Features) != nFeatures {
			t.Fatalf("%d features under an ended context, want the %d word features", len(c.Features), nFeatures)
		}
	}
	if len(v.questions) != 0 {
		t.Errorf("embedded %q under an ended context", v.questions)
	}
	if len(ans.Candidates(t.Context(), ans.Read("What is a topic?"), allScored())[0].Features) != nFeatures+nMeaning {
		t.Error("no meaning features under a live context")
	}
}
