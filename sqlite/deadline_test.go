package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// An exchange whose deadline passes while another process holds the
// database's write lock returns the deadline, not after the busy timeout,
// and is never written, not even once the lock is free.
func TestAppendExchangeDeadlineWhileLocked(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	h, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()

	other, err := sql.Open("sqlite", path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lock, err := other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.ExecContext(ctx, "DELETE FROM chat_sessions WHERE id = 'none'"); err != nil {
		t.Fatal(err)
	}

	stalled := uuid.NewString()
	dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	err = h.AppendExchange(dctx, stalled, question("q"), answer("a"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AppendExchange under a held lock = %v, want the deadline", err)
	}
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}

	// The writer is FIFO: once a later exchange is written, the stalled
	// one has had its turn.
	if err := h.AppendExchange(ctx, uuid.NewString(), question("q2"), answer("a2")); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Messages(ctx, stalled); rag.ErrorCode(err) != rag.ENOTFOUND {
		t.Errorf("the abandoned exchange's session: %v, want not_found", err)
	}
	if n := count(t, h, "SELECT count(*) FROM chat_messages"); n != 2 {
		t.Errorf("%d messages stored, want 2", n)
	}
}
