package answer

import (
	"fmt"
	"testing"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

// split counts the chunks whose units have been split.
func (ans *Answerer) split() int {
	n := 0
	for i := range ans.units {
		if ans.units[i].Load() != nil {
			n++
		}
	}
	return n
}

// Building the answerer splits no chunk: a question splits the chunks it
// reads and keeps their units; the book side (the definition probes)
// keeps none; splitAll splits them all, with the units they would have
// had.
func TestUnitsSplitOnUse(t *testing.T) {
	var chunks []rag.Chunk
	for i := range 40 {
		chunks = append(chunks, rag.Chunk{ID: fmt.Sprintf("c%d", i), ChapterPath: "gears", ChapterTitle: "Gears", SectionHeading: "Gear trains",
			Text: fmt.Sprintf("A **gear train %d** is a set of gears that pass motion along a shaft. Each gear turns the next.", i)})
	}
	ans := New(analysis.NewBook(chunks))
	if n := ans.split(); n != 0 {
		t.Fatalf("New split %d chunks, want none", n)
	}
	ans.Evidence(t.Context(), ans.Read("What is a gear train?"), []rag.ScoredChunk{{Chunk: chunks[3], Score: 1}, {Chunk: chunks[7], Score: 0.5}})
	if n := ans.split(); n != 2 {
		t.Errorf("a question on 2 chunks split %d", n)
	}
	ans.DefinitionProbes()
	if n := ans.split(); n != 2 {
		t.Errorf("the probes left %d chunks' units kept, want the question's 2: the book side is built apart", n)
	}
	ans.splitAll()
	if n := ans.split(); n != len(chunks) {
		t.Errorf("splitAll split %d chunks, want all %d", n, len(chunks))
	}
	units, ok := ans.chunkUnits("c5")
	if want := splitUnits(chunks[5]); !ok || len(units) != len(want) || units[0].text != want[0].text {
		t.Errorf("c5's units: %d (%v), want %d", len(units), ok, len(want))
	}
	if _, ok := ans.chunkUnits("not-the-book's"); ok {
		t.Error("a chunk that is not the book's has units")
	}
}
