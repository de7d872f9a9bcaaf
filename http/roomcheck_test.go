package http

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/textbook-rag/rag"
)

// roomCounting is a history that counts the session-room checks it is
// asked for.
type roomCounting struct {
	rag.History
	checks atomic.Int32
}

func (h *roomCounting) CheckSessionRoom(ctx context.Context, sid string) error {
	h.checks.Add(1)
	return h.History.CheckSessionRoom(ctx, sid)
}

// TestNewSessionSkipsRoomCheck: a question without session_id opens a
// session the server names, which has room, so the store is not asked;
// a question naming its session is checked once.
func TestNewSessionSkipsRoomCheck(t *testing.T) {
	var h *roomCounting
	env := newEnv(t, nil, func(s *Server) {
		h = &roomCounting{History: s.History}
		s.History = h
	})
	for _, tt := range []struct {
		path, body string
		checks     int32
	}{
		{"/api/chat", `{"question":"How do nodes talk?"}`, 0},
		{"/api/chat/stream", `{"question":"How do nodes talk?"}`, 0},
		{"/api/chat", `{"question":"How do nodes talk?","session_id":"` + sid + `"}`, 1},
		{"/api/chat/stream", `{"question":"How do nodes talk?","session_id":"` + sid + `"}`, 1},
	} {
		before := h.checks.Load()
		if w := env.do("POST", tt.path, tt.body); w.Code != 200 {
			t.Fatalf("%s %s: %d %s", tt.path, tt.body, w.Code, w.Body)
		}
		if got := h.checks.Load() - before; got != tt.checks {
			t.Errorf("%s %s: %d room checks, want %d", tt.path, tt.body, got, tt.checks)
		}
	}
	if n := env.recorded(t); n != 8 {
		t.Errorf("%d messages recorded, want 8 (4 exchanges)", n)
	}
}
