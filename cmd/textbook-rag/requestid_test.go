package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/textbook-rag/rag/postgres/pgtest"
)

// A question sent again in its session with its request id, after its
// answer was lost (or a 503 came back though the write went through),
// gets the stored exchange back and is stored once, on SQLite and on
// Postgres, even when the tries arrive together; a request id reused for
// another question in the session is refused. Without a session a request
// id leads nowhere.
func TestRequestIDStoresOnce(t *testing.T) {
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			base, _ := startService(t, func(c *Config) {
				if store == "postgres" {
					c.DatabaseURL = pgtest.SchemaURL(t)
				}
			})
			ask := func(q, rid, sid string) (int, string, string) {
				body := map[string]string{"question": q, "request_id": rid}
				if sid != "" {
					body["session_id"] = sid
				}
				res, data := postJSON(t, base+"/api/chat", body)
				if res.StatusCode != 200 {
					return res.StatusCode, "", ""
				}
				r := decodeChat(t, data)
				return 200, r.SessionID, r.MessageID
			}
			// A request id names no session: the same id sent again without
			// a session, by this client or anyone who guessed it, opens a
			// new session and learns nothing of the first (R5-request-id).
			code, sid, mid := ask("How do nodes talk?", "42", "")
			if code != 200 {
				t.Fatalf("first try: %d", code)
			}
			if c, s2, m2 := ask("How do nodes talk?", "42", ""); c != 200 || s2 == sid || m2 == mid {
				t.Errorf("replayed request id: %d session %s answer %s, want 200 and a session of its own, not %s", c, s2, m2, sid)
			}
			if c, s2, _ := ask("Another question?", "42", ""); c != 200 || s2 == sid {
				t.Errorf("request id replayed with another question: %d session %s, want 200 in a new session", c, s2)
			}
			// Retried in its own session, the question finds the first try's.
			var wg sync.WaitGroup
			for range 5 {
				wg.Go(func() {
					if c, s2, m2 := ask("How do nodes talk?", "q-1", sid); c != 200 || s2 != sid {
						t.Errorf("retry: %d session %s answer %s, want 200 %s", c, s2, m2, sid)
					}
				})
			}
			wg.Wait()
			// Tries that arrive together are stored once too.
			ids := make(chan string, 5)
			for range 5 {
				wg.Go(func() {
					if c, _, m := ask("What is a topic?", "q-2", sid); c == 200 {
						ids <- m
					} else {
						t.Errorf("concurrent try: %d", c)
					}
				})
			}
			wg.Wait()
			close(ids)
			first := ""
			for m := range ids {
				if first == "" {
					first = m
				} else if m != first {
					t.Errorf("concurrent tries answered %s and %s", first, m)
				}
			}
			if c, _, _ := ask("Something else entirely?", "q-2", sid); c != 400 {
				t.Errorf("a request id reused for another question: %d, want 400", c)
			}
			// The stream refuses it as the plain endpoint does, before any
			// event, also for a question it would answer.
			res, data := postJSON(t, base+"/api/chat/stream", map[string]string{"question": "What is a topic?", "request_id": "q-1", "session_id": sid})
			if res.StatusCode != 400 || !strings.Contains(string(data), "request_id q-1 was already used for another question") {
				t.Errorf("stream with a reused request id: %d %s, want 400 and the plain endpoint's error", res.StatusCode, data)
			}
			res, err := http.Get(base + "/api/chat/sessions/" + sid + "/messages")
			if err != nil {
				t.Fatal(err)
			}
			var page struct {
				Messages []struct{ ID string } `json:"messages"`
			}
			decodeJSONBody(t, res, &page)
			if len(page.Messages) != 6 {
				t.Errorf("the session holds %d messages, want 6 (three questions, each stored once)", len(page.Messages))
			}
		})
	}
}

func decodeJSONBody(t *testing.T, res *http.Response, v any) {
	t.Helper()
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(fmt.Errorf("decode: %w", err))
	}
}
