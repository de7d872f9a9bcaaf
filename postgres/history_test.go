package postgres

import (
	"context"
	"fmt"
	"io/fs"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/historytest"
	"github.com/textbook-rag/rag/postgres/pgtest"
)

var t0 = historytest.T0

// testURL returns DATABASE_URL with a new schema of its own first on the
// search path (see pgtest.SchemaURL); it skips the test when DATABASE_URL
// is not set.
func testURL(t *testing.T) string { return pgtest.SchemaURL(t) }

// openTest opens a history in a schema of its own with a fixed clock.
func openTest(t *testing.T) *History {
	t.Helper()
	h, err := Open(context.Background(), testURL(t))
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
	err := h.pool.with(context.Background(), func(c *pgx.Conn) error {
		return c.QueryRow(context.Background(), query, args...).Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func exec(t *testing.T, h *History, query string, args ...any) error {
	t.Helper()
	return h.pool.with(context.Background(), func(c *pgx.Conn) error {
		_, err := c.Exec(context.Background(), query, args...)
		return err
	})
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
	t.Parallel()
	dsn := testURL(t)
	sid := uuid.NewString()
	for i := range 3 {
		h, err := Open(ctx, dsn)
		if err != nil {
			t.Fatalf("open #%d: %v", i+1, err)
		}
		if got := count(t, h, "SELECT count(*) FROM schema_migrations"); got != migrationCount(t) {
			t.Errorf("open #%d: %d schema_migrations rows, want %d", i+1, got, migrationCount(t))
		}
		// The tables are in the test's schema, not elsewhere.
		if got := count(t, h, `SELECT count(*) FROM information_schema.tables
WHERE table_schema = current_schema() AND table_name IN ('schema_migrations', 'chat_sessions', 'chat_messages')`); got != 3 {
			t.Errorf("open #%d: %d tables in the current schema, want 3", i+1, got)
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
	t.Parallel()
	dsn := testURL(t)
	want := migrationCount(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			h, err := Open(context.Background(), dsn)
			if err == nil {
				var n int
				err = h.pool.with(context.Background(), func(c *pgx.Conn) error {
					return c.QueryRow(context.Background(), "SELECT count(*) FROM schema_migrations").Scan(&n)
				})
				if err == nil && n != want {
					err = fmt.Errorf("%d schema_migrations rows, want %d", n, want)
				}
				h.Close()
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
	t.Parallel()
	ctx := context.Background()
	h := openTest(t)
	sid := uuid.NewString()
	if err := h.AppendExchange(ctx, sid, question("q"), answer("a")); err != nil {
		t.Fatal(err)
	}
	if err := exec(t, h, "DELETE FROM chat_sessions WHERE id = $1", sid); err != nil {
		t.Fatal(err)
	}
	if n := count(t, h, "SELECT count(*) FROM chat_messages"); n != 0 {
		t.Errorf("%d messages left after deleting their session", n)
	}
	// Foreign keys are enforced.
	err := exec(t, h, `INSERT INTO chat_messages (id, session_id, role, content, created_at, pos)
VALUES ($1, $2, 'user', 'q', $3, 1)`, uuid.NewString(), uuid.NewString(), t0)
	if err == nil {
		t.Error("a message of an unknown session was accepted")
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct{ name, url string }{
		{"not a url", "postgres://%zz"},
		{"bad pool_max_conns", "postgres://postgres@127.0.0.1:1/db?pool_max_conns=0"},
		{"no server", "postgres://postgres@127.0.0.1:1/db?connect_timeout=5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := Open(context.Background(), tt.url)
			if err == nil {
				h.Close()
				t.Fatalf("Open(%q) succeeded", tt.url)
			}
		})
	}
}
