package analysis

import (
	"reflect"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

// A book given the associations an earlier one derived relates the same
// words, without deriving them; nil derives them.
func TestNewBookWith(t *testing.T) {
	var chunks []rag.Chunk
	for i := range 5 {
		chunks = append(chunks, rag.Chunk{ID: string(rune('a' + i)), Text: strings.Repeat("The lidar scanner spins. A lidar scanner measures range. ", 2) + "Wheels turn."})
	}
	derived := NewBook(chunks)
	if len(derived.Associations()[Stem("lidar")]) == 0 {
		t.Fatal("no associations derived: the test's book is too small")
	}
	kept := NewBookWith(chunks, derived.Associations())
	if !reflect.DeepEqual(kept.Associations(), derived.Associations()) {
		t.Errorf("kept %v, derived %v", kept.Associations(), derived.Associations())
	}
	given := NewBookWith(chunks, map[string][]Related{Stem("wheel"): {{Stem: "marker", Strength: 0.5}}})
	if got := given.Associations()[Stem("wheel")]; len(got) != 1 || got[0].Stem != "marker" {
		t.Errorf("given associations not used: %v", got)
	}
}
