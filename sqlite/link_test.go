package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// checkLinks checks that every answer of msgs names a question of msgs
// whose text it answers ("q7" is answered by "a7").
func checkLinks(t *testing.T, msgs []rag.Message, wantAnswers int) {
	t.Helper()
	questions := map[string]string{}
	for _, m := range msgs {
		if m.Role == "user" {
			if m.QuestionID != "" {
				t.Errorf("question %s has a question id %s", m.ID, m.QuestionID)
			}
			questions[m.ID] = m.Content
		}
	}
	answers := 0
	for _, m := range msgs {
		if m.Role != "assistant" {
			continue
		}
		answers++
		q, ok := questions[m.QuestionID]
		if !ok {
			t.Errorf("answer %q names question %q, not one of the session's", m.Content, m.QuestionID)
		} else if "a"+q[1:] != m.Content {
			t.Errorf("answer %q is linked to question %q", m.Content, q)
		}
	}
	if answers != wantAnswers {
		t.Errorf("%d answers, want %d", answers, wantAnswers)
	}
}

// Exchanges written at once in one session, all at the same instant, are
// listed questions first, but each answer names its question.
func TestConcurrentExchangesLinked(t *testing.T) {
	ctx := context.Background()
	h := openTest(t)
	sid := uuid.NewString()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if err := h.AppendExchange(ctx, sid, question(fmt.Sprint("q", i)), answer(fmt.Sprint("a", i))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	msgs, err := h.Messages(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	checkLinks(t, msgs, 16)

	bad := answer("a99")
	bad.QuestionID = uuid.NewString()
	if err := h.AppendExchange(ctx, sid, question("q99"), bad); rag.ErrorCode(err) != rag.EINVALID {
		t.Errorf("an answer naming another question: %v, want validation_error", err)
	}
}

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
		checkLinks(t, msgs, 3)
	}
}
