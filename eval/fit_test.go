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
// one field are held out together, so a fit on two sibling books and one
// other gives another threshold than one on three fields.
func TestFitHoldsOutFields(t *testing.T) {
	books := []*Labelled{synthetic("a", 1), synthetic("b", 2), synthetic("c", 3)}
	if got := fieldsOf(books); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("fields without names: %v", got)
	}
	books[0].Field, books[1].Field, books[2].Field = "x", "x", "y"
	if got := fieldsOf(books); !reflect.DeepEqual(got, []string{"x", "y"}) {
		t.Errorf("fields: %v", got)
	}
	picks, err := heldOutPicks(books, 10)
	if err != nil {
		t.Fatal(err)
	}
	// Every question is predicted once, by weights fitted without its field.
	if len(picks) != 90 {
		t.Errorf("%d held-out picks, want 90", len(picks))
	}
	wy, _ := fitWeights(books[2:], 10)
	want := picksOf(wy, books[0])
	if !reflect.DeepEqual(picks[:30], want) {
		t.Error("field x's first book is not predicted by the weights of field y alone")
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
