package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)

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

func reason(r rag.RefusalReason) *rag.RefusalReason { return &r }

func question(text string) rag.Message {
	return rag.Message{Role: "user", Content: text}
}

func answer(text string) rag.Message {
	return rag.Message{Role: "assistant", Content: text}
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

func TestExchangeRoundTrip(t *testing.T) {
	ctx := context.Background()
	h := openTest(t)
	sid := uuid.NewString()
	sources := []rag.Source{
		{ChunkID: "m1-c2-0", ModuleID: "module-1", ChapterID: "chapter-2", SectionHeading: "Topics", Anchor: "topics", Score: 0.875},
		{ChunkID: "m1-c2-1", ModuleID: "module-1", ChapterID: "chapter-2", SectionHeading: "Nodes & \"QoS\"", Anchor: "nodes", Score: 0.5},
	}
	q := rag.Message{ID: uuid.NewString(), SessionID: sid, Role: "user", Content: "What is a topic?", CreatedAt: t0.Add(-time.Second)}
	a := rag.Message{ID: uuid.NewString(), SessionID: sid, Role: "assistant", Content: "A named bus.", Sources: sources, CreatedAt: t0}
	if err := h.AppendExchange(ctx, sid, q, a); err != nil {
		t.Fatal(err)
	}
	// A refusal, times and ids from the history.
	rq := question("What is the weather?")
	ra := rag.Message{Role: "assistant", Content: "Out of scope.", WasRefusal: true, RefusalReason: reason(rag.OutOfScope)}
	if err := h.AppendExchange(ctx, sid, rq, ra); err != nil {
		t.Fatal(err)
	}
	got, err := h.Messages(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("got %d messages, want 4", len(got))
	}
	want := []rag.Message{
		{ID: q.ID, SessionID: sid, Role: "user", Content: q.Content, Sources: []rag.Source{}, CreatedAt: q.CreatedAt},
		{ID: a.ID, SessionID: sid, Role: "assistant", Content: a.Content, Sources: sources, QuestionID: q.ID, CreatedAt: a.CreatedAt},
		{ID: got[2].ID, SessionID: sid, Role: "user", Content: rq.Content, Sources: []rag.Source{}, CreatedAt: t0},
		{ID: got[3].ID, SessionID: sid, Role: "assistant", Content: ra.Content, Sources: []rag.Source{}, WasRefusal: true, RefusalReason: reason(rag.OutOfScope), QuestionID: got[2].ID, CreatedAt: t0},
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("message %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
		if got[i].Sources == nil {
			t.Errorf("message %d: nil sources", i)
		}
	}
	for _, m := range got[2:] {
		if _, err := uuid.Parse(m.ID); err != nil {
			t.Errorf("generated id %q: %v", m.ID, err)
		}
	}
	if got[2].ID == got[3].ID {
		t.Errorf("generated ids are equal")
	}
	if got[0].RefusalReason != nil || got[1].RefusalReason != nil {
		t.Errorf("refusal reason of a non-refusal is not nil")
	}
}

func TestEnsureSession(t *testing.T) {
	ctx := context.Background()
	h := openTest(t)
	sid := uuid.NewString()
	if _, err := h.Messages(ctx, sid); rag.ErrorCode(err) != rag.ENOTFOUND {
		t.Fatalf("before EnsureSession: err = %v, want %s", err, rag.ENOTFOUND)
	}
	if err := h.EnsureSession(ctx, sid); err != nil {
		t.Fatal(err)
	}
	h.Now = func() time.Time { return t0.Add(time.Hour) }
	if err := h.EnsureSession(ctx, sid); err != nil {
		t.Fatalf("second EnsureSession: %v", err)
	}
	var started string
	if err := h.db.QueryRowContext(ctx, "SELECT started_at FROM chat_sessions WHERE id = ?", sid).Scan(&started); err != nil {
		t.Fatal(err)
	}
	if started != formatTime(t0) {
		t.Errorf("started_at = %s, want %s (the first call's)", started, formatTime(t0))
	}
	msgs, err := h.Messages(ctx, sid)
	if err != nil || msgs == nil || len(msgs) != 0 {
		t.Errorf("Messages of an empty session = %#v, %v; want an empty slice", msgs, err)
	}
	if err := h.EnsureSession(ctx, "not-a-uuid"); rag.ErrorCode(err) != rag.EINVALID {
		t.Errorf("EnsureSession(not-a-uuid) = %v, want %s", err, rag.EINVALID)
	}
}

func TestMessagesErrors(t *testing.T) {
	h := openTest(t)
	tests := []struct {
		name, id, code string
	}{
		{"unknown session", uuid.NewString(), rag.ENOTFOUND},
		{"not a uuid", "abc", rag.EINVALID},
		{"empty", "", rag.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, err := h.Messages(context.Background(), tt.id)
			if rag.ErrorCode(err) != tt.code || msgs != nil {
				t.Errorf("Messages(%q) = %v, %v; want code %s", tt.id, msgs, err, tt.code)
			}
			if tt.code == rag.ENOTFOUND && rag.ErrorMessage(err) != fmt.Sprintf("session %s not found", tt.id) {
				t.Errorf("message %q", rag.ErrorMessage(err))
			}
		})
	}
}

func TestOrdering(t *testing.T) {
	ctx := context.Background()
	h := openTest(t)
	sid := uuid.NewString()
	// Equal timestamps: insertion order.
	for i := range 3 {
		if err := h.AppendExchange(ctx, sid, question(fmt.Sprint("q", i)), answer(fmt.Sprint("a", i))); err != nil {
			t.Fatal(err)
		}
	}
	// An answer dated before its question comes after it, at its time.
	q := rag.Message{Role: "user", Content: "q3", CreatedAt: t0.Add(2 * time.Second)}
	a := rag.Message{Role: "assistant", Content: "a3", CreatedAt: t0.Add(time.Second)}
	if err := h.AppendExchange(ctx, sid, q, a); err != nil {
		t.Fatal(err)
	}
	// An exchange dated earlier than the others sorts first.
	q = rag.Message{Role: "user", Content: "early q", CreatedAt: t0.Add(-time.Minute)}
	a = rag.Message{Role: "assistant", Content: "early a", CreatedAt: t0.Add(-time.Minute)}
	if err := h.AppendExchange(ctx, sid, q, a); err != nil {
		t.Fatal(err)
	}
	msgs, err := h.Messages(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, m := range msgs {
		got = append(got, m.Content)
		if i > 0 && m.CreatedAt.Before(msgs[i-1].CreatedAt) {
			t.Errorf("message %d is dated before message %d", i, i-1)
		}
	}
	want := []string{"early q", "early a", "q0", "a0", "q1", "a1", "q2", "a2", "q3", "a3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order = %q\nwant %q", got, want)
	}
	if last := msgs[len(msgs)-1]; !last.CreatedAt.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("early-dated answer has created_at %v, want its question's %v", last.CreatedAt, t0.Add(2*time.Second))
	}
}

func TestAppendExchangeInvalid(t *testing.T) {
	id := uuid.NewString()
	tests := []struct {
		name    string
		session string
		q, a    rag.Message
	}{
		{"session not a uuid", "session-1", question("q"), answer("a")},
		{"empty session", "", question("q"), answer("a")},
		{"question role", "", rag.Message{Role: "assistant", Content: "q"}, answer("a")},
		{"answer role", "", question("q"), rag.Message{Role: "user", Content: "a"}},
		{"missing role", "", rag.Message{Content: "q"}, answer("a")},
		{"unknown role", "", question("q"), rag.Message{Role: "system", Content: "a"}},
		{"empty question", "", question(""), answer("a")},
		{"blank answer", "", question("q"), answer(" \n\t")},
		{"invalid utf-8", "", question("q\xff"), answer("a")},
		{"nul", "", question("q"), answer("a\x00b")},
		{"message id not a uuid", "", rag.Message{ID: "m1", Role: "user", Content: "q"}, answer("a")},
		{"same ids", "", rag.Message{ID: id, Role: "user", Content: "q"}, rag.Message{ID: id, Role: "assistant", Content: "a"}},
		{"other session", "", rag.Message{SessionID: uuid.NewString(), Role: "user", Content: "q"}, answer("a")},
		{"unknown refusal reason", "", question("q"), rag.Message{Role: "assistant", Content: "a", WasRefusal: true, RefusalReason: reason("bored")}},
		{"reason without refusal", "", question("q"), rag.Message{Role: "assistant", Content: "a", RefusalReason: reason(rag.OutOfScope)}},
		{"refusing question", "", rag.Message{Role: "user", Content: "q", WasRefusal: true}, answer("a")},
	}
	h := openTest(t)
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sid := tt.session
			if sid == "" && tt.name != "empty session" {
				sid = uuid.NewString()
			}
			err := h.AppendExchange(ctx, sid, tt.q, tt.a)
			var e *rag.Error
			if !errors.As(err, &e) || e.Code != rag.EINVALID {
				t.Fatalf("AppendExchange = %v, want a *rag.Error with code %s", err, rag.EINVALID)
			}
			if n := count(t, h, "SELECT count(*) FROM chat_messages"); n != 0 {
				t.Errorf("%d messages written", n)
			}
			if n := count(t, h, "SELECT count(*) FROM chat_sessions"); n != 0 {
				t.Errorf("%d sessions written", n)
			}
		})
	}
}

func TestAppendExchangeAtomic(t *testing.T) {
	ctx := context.Background()
	h := openTest(t)
	sid := uuid.NewString()
	first := rag.Message{ID: uuid.NewString(), Role: "user", Content: "first q"}
	if err := h.AppendExchange(ctx, sid, first, answer("first a")); err != nil {
		t.Fatal(err)
	}
	// The answer reuses the first question's id: its insert fails after the
	// question's succeeded.
	q := rag.Message{ID: uuid.NewString(), Role: "user", Content: "second q"}
	a := rag.Message{ID: first.ID, Role: "assistant", Content: "second a"}
	err := h.AppendExchange(ctx, sid, q, a)
	if err == nil {
		t.Fatal("AppendExchange with a duplicate answer id succeeded")
	}
	if code := rag.ErrorCode(err); code != rag.EINTERNAL {
		t.Errorf("error code %s, want %s", code, rag.EINTERNAL)
	}
	msgs, err := h.Messages(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Content != "first q" || msgs[1].Content != "first a" {
		t.Errorf("messages after a failed exchange: %+v", msgs)
	}
	if n := count(t, h, "SELECT count(*) FROM chat_messages WHERE id = ?", q.ID); n != 0 {
		t.Errorf("the failed exchange's question was written")
	}
	// Same in a new session: the session is not created either.
	other := uuid.NewString()
	if err := h.AppendExchange(ctx, other, question("q"), a); err == nil {
		t.Fatal("AppendExchange with a duplicate answer id succeeded")
	}
	if _, err := h.Messages(ctx, other); rag.ErrorCode(err) != rag.ENOTFOUND {
		t.Errorf("session of a failed exchange: err = %v, want %s", err, rag.ENOTFOUND)
	}
	// A cancelled context writes nothing.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := h.AppendExchange(cctx, sid, question("q"), answer("a")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled AppendExchange = %v, want context.Canceled", err)
	}
	if n := count(t, h, "SELECT count(*) FROM chat_messages"); n != 2 {
		t.Errorf("%d messages, want 2", n)
	}
}

func TestConcurrentAppend(t *testing.T) {
	ctx := context.Background()
	h := openTest(t)
	sid := uuid.NewString()
	const workers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				err := h.AppendExchange(ctx, sid, question(fmt.Sprintf("q %d %d", w, i)), answer(fmt.Sprintf("a %d %d", w, i)))
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	msgs, err := h.Messages(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2*workers*each {
		t.Fatalf("%d messages, want %d", len(msgs), 2*workers*each)
	}
	seen := map[string]bool{}
	for i := 0; i < len(msgs); i += 2 {
		q, a := msgs[i], msgs[i+1]
		if q.Role != "user" || a.Role != "assistant" || "a"+q.Content[1:] != a.Content {
			t.Errorf("messages %d, %d are not one exchange: %q, %q", i, i+1, q.Content, a.Content)
		}
		if seen[q.Content] {
			t.Errorf("question %q twice", q.Content)
		}
		seen[q.Content] = true
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
