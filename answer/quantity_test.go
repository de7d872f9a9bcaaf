package answer

import (
	"testing"

	"github.com/textbook-rag/rag"
)

func TestAsksQuantity(t *testing.T) {
	tests := []struct {
		q    string
		want bool
	}{
		{"How much smaller were the shaded leaves?", true},
		{"What percentage of the seeds sprouted?", true},
		{"How many routes does one line create?", true},
		{"By what factor did the yield grow?", true},
		{"What proportion of the cells divide?", true},
		{"What is a leaf?", false},
		{"How does shade change a leaf?", false},
		{"Why were the leaves smaller?", false},
	}
	for _, tt := range tests {
		if got := asksQuantity(tt.q); got != tt.want {
			t.Errorf("asksQuantity(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

func TestStatesQuantity(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"The shaded leaves were 30% smaller.", true},
		{"The shaded leaves were about half the size.", true},
		{"It creates seven routes.", true},
		{"Growth rose by 12 mm a week.", true},
		{"The study grew leaves in shade and in sun.", false},
		{"One of the groups grew in shade.", false},
		{"Each of the 2 groups grew in shade.", false}, // the question's own figure
	}
	for _, tt := range tests {
		u := &unit{text: tt.text, nums: numbersIn(tt.text)}
		if got := statesQuantity(u.nums, numbersIn("How much smaller were the leaves of the 2 groups?"), u.text); got != tt.want {
			t.Errorf("statesQuantity(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// A question that asks for an amount is answered from the section that
// states it, never from the one that introduces the study in the same
// words without the figure; where no section states one, it is refused.
func TestQuantityIsAnsweredByAFigure(t *testing.T) {
	intro := rag.Chunk{ID: "intro", ChapterPath: "plants/shade", ChapterTitle: "Shade", SectionHeading: "A study of shaded leaves",
		Text: "[Section: A study of shaded leaves]\n\n## A study of shaded leaves\n\n" +
			"Botanists grew bean plants with shaded leaves and bean plants in full sun, and measured how much smaller the shaded leaves grew. " +
			"The shaded leaves of the bean plants were compared with the sunny leaves at the end of the season.",
		Headings: []rag.Heading{{Level: 2, Text: "A study of shaded leaves", Anchor: "study"}}}
	result := rag.Chunk{ID: "result", ChapterPath: "plants/shade", ChapterTitle: "Shade", SectionHeading: "What the botanists found",
		Text: "[Section: What the botanists found]\n\n## What the botanists found\n\n" +
			"At the end of the season the shaded bean leaves were 40% smaller than the leaves grown in sun.",
		Headings: []rag.Heading{{Level: 2, Text: "What the botanists found", Anchor: "found"}}}
	ans := newAnswerer([]rag.Chunk{intro, result})
	q := "How much smaller were the shaded leaves of the bean plants?"
	_, units, cands := ans.prepare(t.Context(), ans.Read(q), []rag.ScoredChunk{{Chunk: intro, Score: 0.9}, {Chunk: result, Score: 0.8}})
	if len(cands) == 0 {
		t.Fatal("no candidate states the figure")
	}
	for _, c := range cands {
		if h := units[c.w.from].heading.Text; h != "What the botanists found" {
			t.Errorf("a candidate lies in %q, which states no amount", h)
		}
	}
	if ps := ans.Evidence(t.Context(), ans.Read(q), []rag.ScoredChunk{{Chunk: intro, Score: 0.9}}); len(ps) != 0 {
		t.Errorf("answered an amount from a section that states none: %+v", ps)
	}
}
