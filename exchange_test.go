package rag_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// History stores rely on new ids growing with time: each lands at the end
// of the id indexes.
func TestNewIDIsTimeOrdered(t *testing.T) {
	prev := ""
	for i := 0; i < 2000; i++ {
		id := rag.NewID()
		u, err := uuid.Parse(id)
		if err != nil {
			t.Fatalf("NewID() = %q: %v", id, err)
		}
		if u.Version() != 7 {
			t.Fatalf("NewID() = %q is version %d, want 7", id, u.Version())
		}
		if id <= prev {
			t.Fatalf("NewID() = %q after %q: not increasing", id, prev)
		}
		prev = id
	}
}
