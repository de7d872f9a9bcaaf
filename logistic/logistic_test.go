package logistic

import (
	"math"
	"math/rand/v2"
	"testing"
)

// groups draws questions of four candidates whose right choice follows a
// known choice model with weights w and none's score none.
func groups(n int, seed uint64, w []float64, none float64) []Group {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]Group, n)
	for g := range out {
		s := make([]float64, 4)
		for c := range s {
			x := make([]float64, len(w))
			for i := range x {
				x[i] = r.NormFloat64()
				s[c] += w[i] * x[i]
			}
			out[g].X = append(out[g].X, x)
		}
		p := Softmax(none, s)
		u := r.Float64()
		out[g].Right = make([]bool, 4)
		for c := range p {
			if u < p[c] {
				out[g].Right[c] = true
				break
			}
			u -= p[c]
		}
	}
	return out
}

func TestFitRecoversKnownWeights(t *testing.T) {
	want := []float64{2, -1, 0}
	f, err := Fit(groups(8000, 7, want, 0.5), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		// Features are standard normal, so the standardised weight is
		// close to the raw one.
		if got := f.Weights[i] / f.Scale[i]; math.Abs(got-w) > 0.1 {
			t.Errorf("weight %d = %.3f, want %.1f", i, got, w)
		}
	}
	// None's score is relative to the mean candidate's, about 0 here.
	if math.Abs(f.None-0.5) > 0.15 {
		t.Errorf("none = %.3f, want 0.5", f.None)
	}
}

func TestFitIsDeterministic(t *testing.T) {
	g := groups(300, 3, []float64{1, 1}, 0)
	a, err := Fit(g, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Fit(g, 1)
	for i := range a.Weights {
		if a.Weights[i] != b.Weights[i] {
			t.Fatalf("weight %d: %v then %v", i, a.Weights[i], b.Weights[i])
		}
	}
}

func TestFitShrinksWithL2AndIgnoresConstants(t *testing.T) {
	g := groups(300, 5, []float64{3, 0}, 0)
	for _, q := range g {
		for _, x := range q.X {
			x[1] = 4 // a feature that never varies
		}
	}
	free, _ := Fit(g, 0)
	tight, err := Fit(g, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(tight.Weights[0]) >= math.Abs(free.Weights[0]) {
		t.Errorf("l2 did not shrink: %v vs %v", tight.Weights[0], free.Weights[0])
	}
	if math.Abs(free.Weights[1]) > 1e-9 || free.Scale[1] != 1 {
		t.Errorf("constant feature: weight %v scale %v", free.Weights[1], free.Scale[1])
	}
	p := free.Probs([][]float64{{3, 4}, {-3, 4}})
	if p[0] < 0.9 || p[0]+p[1] > 1 {
		t.Errorf("Probs = %v", p)
	}
}

func TestSoftmaxStaysFinite(t *testing.T) {
	p := Softmax(0, []float64{1000, 999})
	if math.IsNaN(p[0]) || math.Abs(p[0]+p[1]-1) > 1e-9 || p[0] < p[1] {
		t.Errorf("Softmax = %v", p)
	}
}

func TestFitRejectsBadGroups(t *testing.T) {
	for name, g := range map[string][]Group{
		"empty":    nil,
		"mismatch": {{X: [][]float64{{1}}, Right: []bool{true, false}}},
		"ragged":   {{X: [][]float64{{1}, {1, 2}}, Right: []bool{true, false}}},
		"nan":      {{X: [][]float64{{math.NaN()}}, Right: []bool{true}}},
	} {
		if _, err := Fit(g, 1); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// BenchmarkFit fits 2,000 questions of four candidates and 52 features,
// about the size of one fold of the shared books' evaluation.
func BenchmarkFit(b *testing.B) {
	w := make([]float64, 52)
	for i := range w {
		w[i] = float64(i%5-2) / 4
	}
	gs := groups(2000, 3, w, 0.5)
	for b.Loop() {
		if _, err := Fit(gs, 3); err != nil {
			b.Fatal(err)
		}
	}
}
