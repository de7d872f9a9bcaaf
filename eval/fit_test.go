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
		name   string
		picks  []pick
		budget float64
		want   float64
	}{
		{"stops before the wrong that breaks the budget", []pick{{0.9, true}, {0.8, true}, {0.7, false}, {0.6, true}}, 0, 0.75},
		{"a budget of one allows the first wrong", []pick{{0.9, true}, {0.8, true}, {0.7, false}, {0.6, true}, {0.5, false}}, 1, 0.55},
		{"all right: halfway to zero", []pick{{0.9, true}, {0.4, true}}, 0, 0.2},
		{"the best is wrong: above it", []pick{{0.9, false}, {0.4, true}}, 0, math.Nextafter(0.9, 2)},
		{"ties are answered together", []pick{{0.9, true}, {0.8, true}, {0.8, false}, {0.3, true}}, 0, 0.85},
		{"no picks", nil, 0, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := threshold(tt.picks, tt.budget); math.Abs(got-tt.want) > 1e-12 {
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
		{Name: "one", Questions: filepath.Join(dir, "q1.jsonl"), Docs: filepath.Join(dir, "../corpus/one")},
		{Name: "two", Questions: filepath.Join(dir, "q2.jsonl"), Docs: filepath.Join(dir, "books/two")},
	}
	if !reflect.DeepEqual(books, want) {
		t.Errorf("got %+v\nwant %+v", books, want)
	}
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
