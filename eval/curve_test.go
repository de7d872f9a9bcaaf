package eval

import (
	"bytes"
	"math"
	"testing"
)

func TestRightAt(t *testing.T) {
	// Ten questions, eight worded; picks best first.
	book := CurveBook{Book: "b", Field: "f", Questions: 10, Worded: 8, Judged: []Judged{
		{0.9, true, true}, {0.8, true, true}, {0.7, false, false}, {0.6, true, true},
		{0.5, true, false}, {0.4, false, true}, {0.3, true, true},
	}}
	tests := []struct {
		name   string
		budget float64
		want   float64
	}{
		{"no wrong answer allowed: stop before the first", 0, 2.0 / 8},
		{"one wrong allowed (10%): up to the second", 0.1, 3.0 / 8},
		{"two wrong allowed: every pick", 0.2, 4.0 / 8},
	}
	for _, tt := range tests {
		if got := RightAt([]CurveBook{book}, tt.budget); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	// Picks of equal confidence are answered together.
	tied := CurveBook{Questions: 100, Worded: 2, Judged: []Judged{{0.5, true, true}, {0.5, false, true}}}
	if got := RightAt([]CurveBook{tied}, 0); got != 0 {
		t.Errorf("a right and a wrong pick of equal confidence at no budget: %v, want 0", got)
	}
	if got := RightAt(nil, 0.02); got != 0 {
		t.Errorf("no books: %v", got)
	}
}

func TestWriteCurves(t *testing.T) {
	a := CurveBook{Book: "a", Field: "robotics", Questions: 100, Worded: 10, Judged: []Judged{{0.9, true, true}, {0.8, false, true}, {0.7, true, true}}}
	b := CurveBook{Book: "b", Field: "web", Questions: 100, Worded: 10, Judged: []Judged{{0.9, true, true}}}
	var out bytes.Buffer
	if err := WriteCurves(&out, "leave-one-book-out", []CurveBook{a, b}); err != nil {
		t.Fatal(err)
	}
	want := "curve leave-one-book-out: ≤1%: 15.0%  ≤2%: 15.0%  ≤3%: 15.0%\n" +
		"curve leave-one-book-out robotics: ≤1%: 20.0%  ≤2%: 20.0%  ≤3%: 20.0%\n" +
		"curve leave-one-book-out web: ≤1%: 10.0%  ≤2%: 10.0%  ≤3%: 10.0%\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
