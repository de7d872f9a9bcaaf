package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/textbook-rag/rag/historytest"
)

// A history written before messages had places in their sessions reads
// as it did (the order of its dates, then of its writes), and new
// exchanges come after it.
func TestMigrationPlacesExistingMessages(t *testing.T) {
	ctx := context.Background()
	dsn := testURL(t)
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "CREATE TABLE schema_migrations (version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"0001_chat_history", "0002_answer_question_id", "0003_feedback"} {
		body, err := migrations.ReadFile("migrations/" + v + ".sql")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ctx, string(body)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ctx, "INSERT INTO schema_migrations (version) VALUES ($1)", v); err != nil {
			t.Fatal(err)
		}
	}
	sid, other := uuid.NewString(), uuid.NewString()
	// Written in this order, dated otherwise: listed "x2 x1 x3".
	for _, m := range []struct {
		sid, name string
		at        time.Duration
	}{{sid, "x1", 2 * time.Second}, {other, "y1", 0}, {sid, "x2", time.Second}, {sid, "x3", 3 * time.Second}} {
		at := t0.Add(m.at)
		if _, err := db.Exec(ctx, "INSERT INTO chat_sessions (id, started_at) VALUES ($1, $2) ON CONFLICT DO NOTHING", m.sid, at); err != nil {
			t.Fatal(err)
		}
		qid := uuid.NewString()
		if _, err := db.Exec(ctx, `INSERT INTO chat_messages (id, session_id, role, content, question_id, created_at)
VALUES ($1, $2, 'user', $3, NULL, $4), ($5, $2, 'assistant', $6, $1, $4)`,
			qid, m.sid, "q "+m.name, at, uuid.NewString(), "a "+m.name); err != nil {
			t.Fatal(err)
		}
	}
	db.Close(ctx)

	h, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.Now = func() time.Time { return t0 }
	// Dated before everything, written last: listed last.
	if err := h.AppendExchange(ctx, sid, question("q x4"), answer("a x4")); err != nil {
		t.Fatal(err)
	}
	historytest.CheckOrder(t, h, sid, "q x2", "a x2", "q x1", "a x1", "q x3", "a x3", "q x4", "a x4")
	historytest.CheckOrder(t, h, other, "q y1", "a y1")
	if got := count(t, h, "SELECT count(DISTINCT pos) FROM chat_messages WHERE session_id = $1 AND pos BETWEEN 1 AND 8", sid); got != 8 {
		t.Errorf("the session's 8 messages hold %d of the places 1 to 8", got)
	}
}
