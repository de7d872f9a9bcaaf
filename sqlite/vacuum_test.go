package sqlite

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// fileSize is the bytes the database takes on disk: the file and its WAL.
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		fi, err := os.Stat(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err == nil {
			n += fi.Size()
		}
	}
	return n
}

// TestRetentionShrinksFile: deleting most of the history by retention
// gives the space back to the file system (incremental vacuum), where it
// used to stay in the file as free pages.
func TestRetentionShrinksFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	h, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	var mode int
	if err := h.db.QueryRowContext(ctx, "PRAGMA auto_vacuum").Scan(&mode); err != nil || mode != 2 {
		t.Errorf("auto_vacuum = %d (%v), want 2 (incremental)", mode, err)
	}
	// 2,000 old sessions of one exchange with ~4 kB answers: 8 MB.
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := h.db.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < 2000)
INSERT INTO chat_sessions (id, started_at, created_at)
SELECT printf('00000000-0000-4000-8000-%012x', i), ?, ? FROM n`, formatTime(old), formatTime(old)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.db.ExecContext(ctx, `INSERT INTO chat_messages (id, session_id, role, content, created_at, pos)
SELECT printf('00000000-0000-4000-9000-%s', substr(id, 25)), id, 'assistant', hex(randomblob(2000)), ?, 1
FROM chat_sessions`, formatTime(old)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	full := fileSize(t, path)
	if full < 8<<20 {
		t.Fatalf("seeded history takes %d bytes; want over 8 MB", full)
	}
	n, err := h.DeleteSessionsBefore(ctx, old.Add(time.Hour))
	if err != nil || n != 2000 {
		t.Fatalf("DeleteSessionsBefore = %d, %v; want 2000", n, err)
	}
	if left := fileSize(t, path); left > full/4 {
		t.Errorf("after deleting every session the history takes %d bytes of %d", left, full)
	} else {
		t.Logf("history: %d bytes before retention, %d after", full, left)
	}
	if free := count(t, h, "PRAGMA freelist_count"); free != 0 {
		t.Errorf("%d free pages left in the file", free)
	}
}

// TestRetentionOnFileWithoutAutoVacuum: a file made before auto_vacuum
// keeps working; retention deletes and leaves the file's size alone.
func TestRetentionOnFileWithoutAutoVacuum(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE older (x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	h, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if mode := count(t, h, "PRAGMA auto_vacuum"); mode != 0 {
		t.Fatalf("auto_vacuum = %d on an existing file, want 0", mode)
	}
	h.Now = func() time.Time { return t0 }
	if err := h.AppendExchange(ctx, uuid.NewString(), question("q"), answer("a")); err != nil {
		t.Fatal(err)
	}
	if n, err := h.DeleteSessionsBefore(ctx, t0.Add(time.Hour)); n != 1 || err != nil {
		t.Errorf("DeleteSessionsBefore = %d, %v; want 1, nil", n, err)
	}
}

// TestReadWhileAnotherHoldsTheWriteLock: a connection opened while
// another process writes can still read (opening one must not need the
// write lock, as setting auto_vacuum on every connection did).
func TestReadWhileAnotherHoldsTheWriteLock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	h, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	sid := uuid.NewString()
	if err := h.AppendExchange(ctx, sid, question("q"), answer("a")); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	lock, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.Exec("DELETE FROM chat_sessions WHERE id = 'none'"); err != nil {
		t.Fatal(err)
	}
	// Readers on fresh connections, more than the pool keeps idle.
	h.db.SetMaxIdleConns(0)
	for i := range 3 {
		if err := h.CheckSessionRoom(ctx, sid); err != nil {
			t.Errorf("read %d while another holds the write lock: %v", i, err)
		}
		if _, err := h.MessagesPage(ctx, sid, rag.PageQuery{Limit: 10}); err != nil {
			t.Errorf("page %d while another holds the write lock: %v", i, err)
		}
	}
}
