package http

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/textbook-rag/rag"
)

// countingTutor counts the questions that reach the tutor.
type countingTutor struct {
	rag.Tutor
	calls atomic.Int64
}

func (c *countingTutor) Ask(ctx context.Context, req rag.ChatRequest, stream rag.Stream) (rag.ChatResponse, error) {
	c.calls.Add(1)
	return c.Tutor.Ask(ctx, req, stream)
}

// A control character in the question or the selection is the client's
// mistake: 400 before the tutor runs, nothing recorded, on both endpoints.
func TestChatControlCharacters(t *testing.T) {
	bodies := []struct {
		name, body, field string
	}{
		{"NUL in question", `{"question":"What is URDF?\u0000"}`, "question"},
		{"NUL in selected text", `{"question":"What is this?","selected_text":"Nodes\u0000talk."}`, "selected_text"},
		{"escape in question", `{"question":"\u001b[2Jhow do nodes talk?"}`, "question"},
		{"C1 control in selected text", `{"question":"What is this?","selected_text":"a\u0085b"}`, "selected_text"},
	}
	for _, path := range []string{"/api/chat", "/api/chat/stream"} {
		for _, tc := range bodies {
			t.Run(path+"/"+tc.name, func(t *testing.T) {
				tutor := &countingTutor{Tutor: testTutor{}}
				env := newEnv(t, nil, func(s *Server) { s.Tutor = tutor })
				w := env.do("POST", path, tc.body)
				if w.Code != 400 {
					t.Fatalf("status %d, want 400: %s", w.Code, w.Body)
				}
				e := decode[ErrorBody](t, w)
				if e.Error != rag.EINVALID || e.Details["field"] != tc.field {
					t.Errorf("error %+v, want validation_error on %s", e, tc.field)
				}
				if n := tutor.calls.Load(); n != 0 {
					t.Errorf("the tutor was asked %d times", n)
				}
				if n := env.recorded(t); n != 0 {
					t.Errorf("recorded %d messages", n)
				}
			})
		}
	}
}
