package http

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/sqlite"
)

// capTutor counts the questions it is asked and runs before, if set,
// before answering like testTutor.
type capTutor struct {
	calls  atomic.Int32
	before func(req rag.ChatRequest)
}

func (c *capTutor) Ask(ctx context.Context, req rag.ChatRequest, stream rag.Stream) (rag.ChatResponse, error) {
	c.calls.Add(1)
	if c.before != nil {
		c.before(req)
	}
	return testTutor{}.Ask(ctx, req, stream)
}

// TestSessionFull: a session at its cap gets 409 session_full, telling
// the reader to start a new session, without the tutor being asked; a
// session that fills while its question is answered gets the same error
// (an error event on a started stream), not a 500, and nothing past the
// cap is stored.
func TestSessionFull(t *testing.T) {
	tutor := &capTutor{}
	env := newEnv(t, nil, func(s *Server) { s.Tutor = tutor })
	store := env.history.History.(*sqlite.History)
	store.MaxSessionMessages = 4
	chat := `{"question":"How do nodes talk?","session_id":"` + sid + `"}`
	for i := range 2 {
		if w := env.do("POST", "/api/chat", chat); w.Code != 200 {
			t.Fatalf("exchange %d: %d %s", i, w.Code, w.Body)
		}
	}
	for _, path := range []string{"/api/chat", "/api/chat/stream"} {
		t.Run(path, func(t *testing.T) {
			before := tutor.calls.Load()
			w := env.do("POST", path, chat)
			if w.Code != 409 || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
				t.Fatalf("full session: %d %s", w.Code, w.Body)
			}
			body := decode[ErrorBody](t, w)
			if body.Error != rag.ESESSIONFULL || body.Details["max_messages"] != float64(4) || !strings.Contains(body.Message, "new session") {
				t.Errorf("body %s", w.Body)
			}
			if tutor.calls.Load() != before {
				t.Errorf("the tutor was asked for a full session")
			}
		})
	}
	if n := env.messages(t, sid); n != 4 {
		t.Errorf("session holds %d messages, want 4", n)
	}

	// Full by the time the answer is written: another exchange took the
	// last room while this one was being answered.
	other := "0f1c2a4e-1b2c-4d5e-8f90-123456789abc"
	tutor.before = func(req rag.ChatRequest) {
		if req.SessionID == other {
			_ = store.AppendExchange(context.Background(), other, rag.Message{Role: "user", Content: "q"}, rag.Message{Role: "assistant", Content: "a"})
		}
	}
	for _, tc := range []struct{ path, question string }{{"/api/chat", "plain"}, {"/api/chat/stream", "streamed"}} {
		t.Run("filled meanwhile "+tc.path, func(t *testing.T) {
			ctx := context.Background()
			if err := store.AppendExchange(ctx, other, rag.Message{Role: "user", Content: "q"}, rag.Message{Role: "assistant", Content: "a"}); err != nil && rag.ErrorCode(err) != rag.ESESSIONFULL {
				t.Fatal(err)
			}
			// Make room for exactly one more exchange.
			store.MaxSessionMessages = env.messages(t, other) + 2
			w := env.do("POST", tc.path, `{"question":"`+tc.question+`","session_id":"`+other+`"}`)
			switch tc.path {
			case "/api/chat":
				if w.Code != 409 || decode[ErrorBody](t, w).Error != rag.ESESSIONFULL {
					t.Errorf("got %d %s", w.Code, w.Body)
				}
			default:
				evs := parseSSE(t, w.Body.String())
				if w.Code != 200 || len(evs) == 0 || evs[len(evs)-1].Name != "error" || !strings.Contains(evs[len(evs)-1].Data, rag.ESESSIONFULL) {
					t.Errorf("got %d %s", w.Code, w.Body)
				}
			}
			if n := env.messages(t, other); n != store.MaxSessionMessages {
				t.Errorf("session holds %d messages, want the cap %d", n, store.MaxSessionMessages)
			}
		})
	}
}
