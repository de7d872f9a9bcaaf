package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// TestStatementJournalInMemory checks that every connection keeps its
// temporary data (the statement journal of each exchange's insert) in
// memory: temp_store 2 is MEMORY.
func TestStatementJournalInMemory(t *testing.T) {
	ctx := context.Background()
	h, err := Open(ctx, filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for i := 0; i < 3; i++ {
		conn, err := h.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var mode int
		if err := conn.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if mode != 2 {
			t.Errorf("connection %d: temp_store = %d, want 2 (memory)", i, mode)
		}
	}
}
