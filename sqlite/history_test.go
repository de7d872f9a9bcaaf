package sqlite

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/historytest"
)

var t0 = historytest.T0

// openTest opens a history in a fresh file with a fixed clock.
func openTest(t *testing.T) *History {
	t.Helper()
	h, err := Open(context.Background(), filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	h.Now = func() time.Time { return t0 }
	return h
}

func count(t *testing.T, h *History, query string, args ...any) int {
	t.Helper()
	var n int
	if err := h.db.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// migrationCount is the number of embedded migrations.
func migrationCount(t *testing.T) int {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("embedded migrations: %v, %d files", err, len(names))
	}
	return len(names)
}

func question(text string) rag.Message {
	return rag.Message{Role: "user", Content: text}
}

func answer(text string) rag.Message {
	return rag.Message{Role: "assistant", Content: text}
}

// TestContract runs the history contract that the other store keeps too.
func TestContract(t *testing.T) {
	historytest.Run(t, func(t *testing.T) historytest.Store {
		h := openTest(t)
		return historytest.Store{History: h, Count: func(table string) int {
			return count(t, h, "SELECT count(*) FROM "+table)
		}, SetMaxSessionMessages: func(n int) { h.MaxSessionMessages = n }}
	})
}

func TestOpenMigratesOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	sid := uuid.NewString()
	for i := range 3 {
		h, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("open #%d: %v", i+1, err)
		}
		if got := count(t, h, "SELECT count(*) FROM schema_migrations"); got != migrationCount(t) {
			t.Errorf("open #%d: %d schema_migrations rows, want %d", i+1, got, migrationCount(t))
		}
		var mode string
		var fk int
		if err := h.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("journal_mode = %q, %v; want wal", mode, err)
		}
		if err := h.db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
			t.Errorf("foreign_keys = %d, %v; want 1", fk, err)
		}
		if err := h.Ping(ctx); err != nil {
			t.Errorf("ping: %v", err)
		}
		// Data written by an earlier open survives the later ones.
		if err := h.AppendExchange(ctx, sid, question(fmt.Sprint("q", i)), answer(fmt.Sprint("a", i))); err != nil {
			t.Fatal(err)
		}
		msgs, err := h.Messages(ctx, sid)
		if err != nil || len(msgs) != 2*(i+1) {
			t.Fatalf("open #%d: %d messages, %v; want %d", i+1, len(msgs), err, 2*(i+1))
		}
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
		if err := h.Ping(ctx); err == nil {
			t.Errorf("Ping after Close succeeded")
		}
	}
}

func TestOpenConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			h, err := Open(context.Background(), path)
			if err == nil {
				err = h.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestDeleteSessionCascades(t *testing.T) {
	ctx := context.Background()
	h := openTest(t)
	sid := uuid.NewString()
	if err := h.AppendExchange(ctx, sid, question("q"), answer("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := h.db.ExecContext(ctx, "DELETE FROM chat_sessions WHERE id = ?", sid); err != nil {
		t.Fatal(err)
	}
	if n := count(t, h, "SELECT count(*) FROM chat_messages"); n != 0 {
		t.Errorf("%d messages left after deleting their session", n)
	}
	// Foreign keys are enforced.
	_, err := h.db.ExecContext(ctx, `INSERT INTO chat_messages (id, session_id, role, content, created_at)
VALUES (?, ?, 'user', 'q', ?)`, uuid.NewString(), uuid.NewString(), formatTime(t0))
	if err == nil {
		t.Error("a message of an unknown session was accepted")
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, path string }{
		{"empty", ""},
		{"question mark", filepath.Join(dir, "a?b.db")},
		{"missing directory", filepath.Join(dir, "missing", "history.db")},
		{"a directory", dir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := Open(context.Background(), tt.path)
			if err == nil {
				h.Close()
				t.Fatalf("Open(%q) succeeded", tt.path)
			}
		})
	}
}

// A batch with one bad exchange still writes the others, each whole.
func TestCommitBatchWithBadExchange(t *testing.T) {
	ctx := context.Background()
	h := openTest(t)
	taken := rag.Message{ID: uuid.NewString(), Role: "user", Content: "taken"}
	if err := h.AppendExchange(ctx, uuid.NewString(), taken, answer("a")); err != nil {
		t.Fatal(err)
	}
	var batch []*writeReq
	for i := range 4 {
		q := question(fmt.Sprintf("q%d", i))
		if i == 2 {
			q.ID = taken.ID
		}
		sid, rows, err := rag.PrepareExchange(uuid.NewString(), q, answer(fmt.Sprintf("a%d", i)), h.now)
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, &writeReq{sid: sid, rows: rows, done: make(chan error, 1)})
	}
	h.commit(batch)
	for i, r := range batch {
		err := <-r.done
		if (err != nil) != (i == 2) {
			t.Errorf("exchange %d: err = %v", i, err)
		}
		n := count(t, h, "SELECT count(*) FROM chat_messages WHERE session_id = ?", r.sid)
		if want := map[bool]int{true: 0, false: 2}[i == 2]; n != want {
			t.Errorf("exchange %d: %d messages written, want %d", i, n, want)
		}
	}
	if n := count(t, h, "SELECT count(*) FROM chat_sessions"); n != 4 {
		t.Errorf("%d sessions, want 4 (the bad exchange's session is not created)", n)
	}
}
