package eval

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/textbook-rag/rag/answer"
)

func TestThreshold(t *testing.T) {
	tests := []struct {
		name  string
		picks []pick
		cost  float64
		want  float64
	}{
		{"a wrong answer costing two stops before the wrong one", []pick{{0.9, true}, {0.8, true}, {0.7, false}, {0.6, true}}, 2, 0.75},
		{"two right answers pay for a wrong one costing one", []pick{{0.9, true}, {0.8, false}, {0.7, true}, {0.6, true}, {0.5, false}}, 1, 0.55},
		{"all right: halfway to zero", []pick{{0.9, true}, {0.4, true}}, 6, 0.2},
		{"the best is wrong and nothing pays for it: above it", []pick{{0.9, false}, {0.4, true}}, 6, math.Nextafter(0.9, 2)},
		{"the best is wrong, but enough right ones follow", []pick{{0.9, false}, {0.8, true}, {0.7, true}, {0.6, true}}, 2, 0.3},
		{"ties are answered together", []pick{{0.9, true}, {0.8, true}, {0.8, false}, {0.3, true}}, 2, 0.85},
		{"no picks", nil, 6, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := threshold(tt.picks, tt.cost); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("threshold = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReadBooks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "books.tsv")
	os.WriteFile(path, []byte("# question file\tbook\nq1.jsonl\t../corpus/one\n\nq2.jsonl\tbooks/two\n"), 0o644)
	books, err := ReadBooks(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Book{
		{Name: "one", Questions: filepath.Join(dir, "q1.jsonl"), Docs: filepath.Join(dir, "../corpus/one"), Field: "one"},
		{Name: "two", Questions: filepath.Join(dir, "q2.jsonl"), Docs: filepath.Join(dir, "books/two"), Field: "two"},
	}
	if !reflect.DeepEqual(books, want) {
		t.Errorf("without fields.tsv: got %+v\nwant %+v", books, want)
	}
	// fields.tsv names a field by the book folder as books.tsv writes it.
	os.WriteFile(filepath.Join(dir, "fields.tsv"), []byte("# book\tfield\n../corpus/one\tbiology\n"), 0o644)
	books, err = ReadBooks(path)
	if err != nil {
		t.Fatal(err)
	}
	want[0].Field = "biology"
	if !reflect.DeepEqual(books, want) {
		t.Errorf("with fields.tsv: got %+v\nwant %+v", books, want)
	}
	os.WriteFile(filepath.Join(dir, "fields.tsv"), []byte("../corpus/one biology\n"), 0o644)
	if _, err := ReadBooks(path); err == nil {
		t.Error("a fields.tsv line without a tab: no error")
	}
	os.Remove(filepath.Join(dir, "fields.tsv"))
	for name, body := range map[string]string{"no tab": "q1.jsonl ../corpus\n", "empty": "# nothing\n"} {
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := ReadBooks(path); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// synthetic makes a labelled book whose right candidate is the one with
// the largest first feature, with noise in the others.
func synthetic(name string, seed int) *Labelled {
	n := len(answer.Features)
	b := &Labelled{Book: name, Questions: 40}
	for q := 0; q < 30; q++ {
		a := Asked{ID: name}
		for c := 0; c < 4; c++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = float64((seed*31+q*7+c*13+i*3)%11) / 10
			}
			x[0] = float64((q+c*5+seed)%9) / 8
			a.X = append(a.X, x)
		}
		best := 0
		for c := range a.X {
			if a.X[c][0] > a.X[best][0] {
				best = c
			}
		}
		a.Correct = make([]bool, len(a.X))
		a.Section = []string{"s1", "s2", "s3", "s4"}
		a.Correct[best] = q%5 != 0 // every fifth question has no answer
		b.Asked = append(b.Asked, a)
	}
	return b
}

// Fit's threshold is chosen on leave-one-field-out predictions: books of
// one field are held out together, and each held-out model's members are
// fitted without one further field.
func TestFitHoldsOutFields(t *testing.T) {
	books := []*Labelled{synthetic("a", 1), synthetic("b", 2), synthetic("c", 3), synthetic("d", 4)}
	books[0].Field, books[1].Field, books[2].Field, books[3].Field = "x", "x", "y", "z"
	f := newFitter(books, nil)
	if !reflect.DeepEqual(f.groups, []string{"x", "y", "z"}) {
		t.Fatalf("groups %v", f.groups)
	}
	picks, err := f.heldOutPicks(10, true)
	if err != nil {
		t.Fatal(err)
	}
	// Every question is predicted once, by a model fitted without its field.
	if len(picks) != 120 {
		t.Errorf("%d held-out picks, want 120", len(picks))
	}
	wyz, _ := fitWeights(books[2:], 10)
	wy, _ := fitWeights(books[2:3], 10)
	wz, _ := fitWeights(books[3:], 10)
	m := &answer.Model{Mean: wyz.Mean, Scale: wyz.Scale, Weights: wyz.Weights, None: wyz.None, Members: []answer.Member{
		{Without: "y", Mean: wz.Mean, Scale: wz.Scale, Weights: wz.Weights, None: wz.None},
		{Without: "z", Mean: wy.Mean, Scale: wy.Scale, Weights: wy.Weights, None: wy.None},
	}}
	if want := picksOf(m, books[0]); !reflect.DeepEqual(picks[:30], want) {
		t.Error("field x's first book is not predicted by the model of fields y and z with their members")
	}
	// Without members: the model of the other fields' books alone.
	picks, err = f.heldOutPicks(10, false)
	if err != nil {
		t.Fatal(err)
	}
	single := &answer.Model{Mean: wyz.Mean, Scale: wyz.Scale, Weights: wyz.Weights, None: wyz.None}
	if !reflect.DeepEqual(picks[:30], picksOf(single, books[0])) {
		t.Error("without members, the first book is not predicted by the weights of the other fields alone")
	}
}

// The picked section's probability is the least of the model's and its
// members': one member that doubts is enough.
func TestModelPickTakesTheLeastProbability(t *testing.T) {
	n := len(answer.Features)
	unit := func(w0 float64) ([]float64, []float64, []float64) {
		mean, scale, w := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range scale {
			scale[i] = 1
		}
		w[0] = w0
		return mean, scale, w
	}
	mean, scale, w := unit(3)
	m := &answer.Model{Mean: mean, Scale: scale, Weights: w}
	xs := [][]float64{make([]float64, n), make([]float64, n)}
	xs[0][0] = 1
	sections := []string{"a", "b"}
	best, alone := m.Pick(xs, m.Probs(xs), sections)
	if best != 0 {
		t.Fatalf("picked %d, want 0", best)
	}
	mm, ms, mw := unit(0.5)
	m.Members = []answer.Member{{Without: "x", Mean: mm, Scale: ms, Weights: mw}}
	best2, doubted := m.Pick(xs, m.Probs(xs), sections)
	if best2 != best || doubted >= alone {
		t.Errorf("with a doubting member: pick %d p %.3f, alone %.3f", best2, doubted, alone)
	}
}

func TestFitIsReproducibleAndLearns(t *testing.T) {
	books := []*Labelled{synthetic("a", 1), synthetic("b", 2), synthetic("c", 3)}
	m1, err := Fit(books, DefaultFitOptions())
	if err != nil {
		t.Fatal(err)
	}
	m2, _ := Fit(books, DefaultFitOptions())
	if !reflect.DeepEqual(m1, m2) {
		t.Fatal("two fits of the same books differ")
	}
	if m1.Weights[0] <= 0 {
		t.Errorf("the deciding feature got weight %v", m1.Weights[0])
	}
	if m1.Fit.Questions != 120 || m1.Fit.Pairs != 360 || len(m1.Fit.Books) != 3 {
		t.Errorf("fit info %+v", m1.Fit)
	}
	if err := m1.Validate(); err != nil {
		t.Error(err)
	}
}

// The selected-text threshold is the one under which the labelled
// selections score best (+1 right, 0 refused, -1 wrong), halfway down to
// the next score.
func TestSelectedThreshold(t *testing.T) {
	tests := []struct {
		name string
		sels []Selection
		want float64
	}{
		{"none labelled", nil, answer.ZeroModel().SelectedThreshold},
		{"answers above, refusals below", []Selection{
			{Score: 0.9, Correct: true}, {Score: 0.7, Correct: true},
			{Score: 0.5, Refuse: true}, {Score: 0.3, Refuse: true},
		}, 0.6},
		{"a wrong answer at 0.8 costs more than the right one at 0.6 gains", []Selection{
			{Score: 0.95, Correct: true}, {Score: 0.8, Refuse: true}, {Score: 0.8, Refuse: true}, {Score: 0.6, Correct: true},
		}, 0.875},
		{"the lowest right answer answered", []Selection{{Score: 0.4, Correct: true}, {Score: 0, Refuse: true}}, 0.2},
	}
	for _, tt := range tests {
		got := selectedThreshold([]*Labelled{{Selected: tt.sels}})
		if math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: threshold %v, want %v", tt.name, got, tt.want)
		}
	}
}
