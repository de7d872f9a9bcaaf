package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/historytest"
)

// A history written before answers named their questions gets the links
// from the migration.
func TestMigrationLinksExistingAnswers(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	first, err := migrations.ReadFile("migrations/0001_chat_history.sql")
	if err != nil {
		t.Fatal(err)
	}
	sids := []string{uuid.NewString(), uuid.NewString()}
	at := formatTime(t0)
	stmts := []string{
		"CREATE TABLE schema_migrations (version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)",
		string(first),
		"INSERT INTO schema_migrations VALUES ('0001_chat_history', '" + at + "')",
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	// Two sessions written in turns: q0 a0 (s0), q1 a1 (s1), q2 a2 (s0), ...
	for i := range 6 {
		s := sids[i%2]
		if _, err := db.ExecContext(ctx, "INSERT OR IGNORE INTO chat_sessions (id, started_at, created_at) VALUES (?, ?, ?)", s, at, at); err != nil {
			t.Fatal(err)
		}
		for _, m := range []rag.Message{question(fmt.Sprint("q", i)), answer(fmt.Sprint("a", i))} {
			if _, err := db.ExecContext(ctx, "INSERT INTO chat_messages (id, session_id, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
				uuid.NewString(), s, m.Role, m.Content, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	db.Close()

	h, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.Now = func() time.Time { return t0 }
	for _, s := range sids {
		msgs, err := h.Messages(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		historytest.CheckLinks(t, msgs, 3)
	}
}
