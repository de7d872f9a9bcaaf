package http

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/sqlite"
)

// messagesPage is the body of GET /api/chat/sessions/{id}/messages.
type messagesPage struct {
	SessionID string `json:"session_id"`
	Messages  []struct {
		ID      string `json:"id"`
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Limit      int     `json:"limit"`
	HasMore    bool    `json:"has_more"`
	NextBefore *string `json:"next_before"`
	NextAfter  *string `json:"next_after"`
}

// TestMessagesPaging: the messages endpoint answers one page at a time,
// the latest first, with the cursor of the next page in the body; bad
// paging parameters are 400s naming the parameter.
func TestMessagesPaging(t *testing.T) {
	env := newEnv(t, nil)
	ctx := context.Background()
	var want []string
	for i := range 7 {
		q, a := fmt.Sprint("q", i), fmt.Sprint("a", i)
		if err := env.history.AppendExchange(ctx, sid, rag.Message{Role: "user", Content: q}, rag.Message{Role: "assistant", Content: a}); err != nil {
			t.Fatal(err)
		}
		want = append(want, q, a)
	}
	other := uuid.NewString()
	if err := env.history.AppendExchange(ctx, other, rag.Message{Role: "user", Content: "q"}, rag.Message{Role: "assistant", Content: "a"}); err != nil {
		t.Fatal(err)
	}
	otherMsgs, err := env.history.Messages(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	get := func(query string) messagesPage {
		t.Helper()
		w := env.do("GET", "/api/chat/sessions/"+sid+"/messages"+query, "")
		if w.Code != 200 {
			t.Fatalf("GET %s: %d %s", query, w.Code, w.Body)
		}
		return decode[messagesPage](t, w)
	}

	// No parameters: the whole of a short session, as before paging.
	p := get("")
	if len(p.Messages) != 14 || p.HasMore || p.NextBefore != nil || p.NextAfter != nil || p.Limit != rag.DefaultMessagesPage {
		t.Fatalf("unpaged read: %+v", p)
	}

	// Backwards from the latest page, by next_before.
	var got []string
	query := "?limit=4"
	for range 10 {
		p := get(query)
		var page []string
		for _, m := range p.Messages {
			page = append(page, m.Content)
		}
		got = append(page, got...)
		if p.Limit != 4 || len(p.Messages) > 4 || p.HasMore != (p.NextBefore != nil) {
			t.Fatalf("%s: %+v", query, p)
		}
		if !p.HasMore {
			break
		}
		query = "?limit=4&before=" + *p.NextBefore
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("backwards: %q, want %q", got, want)
	}

	// Forwards by next_after, from the first message.
	first := get("?limit=1&before=" + *get("?limit=13").NextBefore)
	if first.HasMore || len(first.Messages) != 1 || first.Messages[0].Content != "q0" || first.NextAfter == nil {
		t.Fatalf("first page: %+v", first)
	}
	got = []string{"q0"}
	query = "?limit=5&after=" + *first.NextAfter
	for range 10 {
		p := get(query)
		for _, m := range p.Messages {
			got = append(got, m.Content)
		}
		if p.HasMore != (p.NextAfter != nil) || p.NextBefore == nil {
			t.Fatalf("%s: %+v", query, p)
		}
		if !p.HasMore {
			break
		}
		query = "?limit=5&after=" + *p.NextAfter
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("forwards: %q, want %q", got, want)
	}

	for _, tc := range []struct {
		name, query string
		status      int
		code, field string
	}{
		{"limit zero", "?limit=0", 400, "validation_error", "limit"},
		{"limit over the maximum", fmt.Sprintf("?limit=%d", rag.MaxMessagesPage+1), 400, "validation_error", "limit"},
		{"limit not a number", "?limit=ten", 400, "validation_error", "limit"},
		{"limit empty", "?limit=", 400, "validation_error", "limit"},
		{"limit negative", "?limit=-1", 400, "validation_error", "limit"},
		{"cursor not a uuid", "?before=abc", 400, "validation_error", "before"},
		{"cursor braced", "?after=" + url.QueryEscape("{"+otherMsgs[0].ID+"}"), 400, "validation_error", "after"},
		{"both cursors", "?before=" + otherMsgs[0].ID + "&after=" + otherMsgs[0].ID, 400, "validation_error", "before"},
		{"unknown cursor", "?before=" + uuid.NewString(), 400, "validation_error", "before"},
		{"another session's message", "?after=" + otherMsgs[0].ID, 400, "validation_error", "after"},
		{"limit at the maximum", fmt.Sprintf("?limit=%d", rag.MaxMessagesPage), 200, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := env.do("GET", "/api/chat/sessions/"+sid+"/messages"+tc.query, "")
			if w.Code != tc.status {
				t.Fatalf("got %d %s", w.Code, w.Body)
			}
			if tc.code == "" {
				return
			}
			body := decode[ErrorBody](t, w)
			if body.Error != tc.code || body.Details["field"] != tc.field {
				t.Errorf("got %s, want %s naming %s", w.Body, tc.code, tc.field)
			}
		})
	}
}

// TestMessagesLongSessionBoundedMemory reads a 50,000-message session
// (about 33 MB of messages, as in the campaign that found one body of
// that size) page by page through the handler: every message comes back
// once, in order, and each request's body and allocations stay bounded by
// the page, not the session.
func TestMessagesLongSessionBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 50,000 messages")
	}
	const total = 50_000
	path := filepath.Join(t.TempDir(), "h.db")
	h, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	seedLongSession(t, path, sid, total)

	s := NewServer(DefaultConfig())
	s.History = h
	s.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	handler := s.Handler()
	const (
		maxBody  = 1 << 20  // 500 messages of ~640 bytes, with their JSON
		maxAlloc = 16 << 20 // bytes allocated by one request
	)
	var (
		ms       runtime.MemStats
		seen     = 0
		query    = fmt.Sprintf("?limit=%d", rag.MaxMessagesPage)
		newest   = fmt.Sprintf("%012x", total)
		maxSeen  uint64
		maxBytes int
	)
	for page := 0; ; page++ {
		if page > total/rag.MaxMessagesPage+1 {
			t.Fatal("paging does not end")
		}
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		w := httptestDo(handler, "GET", "/api/chat/sessions/"+sid+"/messages"+query)
		runtime.ReadMemStats(&ms)
		alloc := ms.TotalAlloc - before
		maxSeen, maxBytes = max(maxSeen, alloc), max(maxBytes, w.Body.Len())
		if w.Code != 200 {
			t.Fatalf("page %d: %d %.200s", page, w.Code, w.Body)
		}
		if w.Body.Len() > maxBody || alloc > maxAlloc {
			t.Fatalf("page %d: body %d bytes, %d bytes allocated; want at most %d and %d", page, w.Body.Len(), alloc, maxBody, maxAlloc)
		}
		p := decode[messagesPage](t, w)
		// Pages come newest first; within a page, oldest first.
		for i := len(p.Messages) - 1; i >= 0; i-- {
			id := p.Messages[i].ID
			n := id[len(id)-12:]
			if n >= newest {
				t.Fatalf("page %d: message %s after %s", page, id, newest)
			}
			newest = n
			seen++
		}
		if !p.HasMore {
			break
		}
		query = fmt.Sprintf("?limit=%d&before=%s", rag.MaxMessagesPage, *p.NextBefore)
	}
	if seen != total {
		t.Errorf("read %d messages, want %d", seen, total)
	}
	t.Logf("%d messages: largest page body %d bytes, largest allocation per request %d bytes", seen, maxBytes, maxSeen)
}

// seedLongSession writes a session of n messages (alternating questions
// and answers, ids ending in their number, ~600 bytes each) in one
// transaction straight into the store's file: through AppendExchange
// it would take a commit per exchange.
func seedLongSession(t *testing.T, path, sid string, n int) {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO chat_sessions (id, started_at, created_at) VALUES (?, '2025-01-01T00:00:00.000000Z', '2025-01-01T00:00:00.000000Z')`, sid); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
INSERT INTO chat_messages (id, session_id, role, content, sources, was_refusal, question_id, created_at, pos)
SELECT printf('00000000-0000-4000-8000-%012x', i), ?,
	CASE i % 2 WHEN 0 THEN 'user' ELSE 'assistant' END,
	'message ' || i || ' ' || hex(zeroblob(300)), '[]', 0,
	CASE i % 2 WHEN 0 THEN NULL ELSE printf('00000000-0000-4000-8000-%012x', i - 1) END,
	strftime('%Y-%m-%dT%H:%M:%S', 1735689600 + i / 2, 'unixepoch') || '.000000Z', i + 1
FROM n`, n, sid); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// httptestDo serves one request without a body through h.
func httptestDo(h http.Handler, method, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}
