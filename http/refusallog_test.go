package http

import (
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/textbook-rag/rag"
)

// fakeRefusalLog records what it is asked to log, or fails like a full
// disk.
type fakeRefusalLog struct {
	mu     sync.Mutex
	logged []string
	fail   bool
}

func (l *fakeRefusalLog) Log(req rag.ChatRequest, resp rag.ChatResponse) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail {
		return errors.New("refusal log: write: " + syscall.ENOSPC.Error())
	}
	l.logged = append(l.logged, req.Question)
	return nil
}

// The refusal log and refusals_total hear of a refusal only once it is
// recorded: not of an answer, not of a refusal whose history write failed
// (a 500). A log that cannot write is counted in refusal_log_errors_total
// and the reader still gets the refusal.
func TestRefusalLogAfterRecord(t *testing.T) {
	for _, path := range []string{"/api/chat", "/api/chat/stream"} {
		t.Run(path, func(t *testing.T) {
			log := &fakeRefusalLog{}
			env := newEnv(t, nil, func(s *Server) { s.Refusals = log })
			body := func(q string) string { return jsonBody(t, map[string]string{"question": q, "session_id": sid}) }

			if w := env.do("POST", path, body("how do nodes talk?")); w.Code != 200 {
				t.Fatalf("answer: status %d", w.Code)
			}
			env.history.failAppend = true
			if w := env.do("POST", path, body("please refuse, unrecorded")); w.Code != 500 {
				t.Fatalf("refusal with a failing history: status %d, want 500", w.Code)
			}
			env.history.failAppend = false
			if w := env.do("POST", path, body("please refuse")); w.Code != 200 {
				t.Fatalf("refusal: status %d", w.Code)
			}
			if got := strings.Join(log.logged, "|"); got != "please refuse" {
				t.Errorf("logged %q, want only the recorded refusal", got)
			}

			log.fail = true
			w := env.do("POST", path, body("refuse again"))
			if w.Code != 200 || !strings.Contains(w.Body.String(), "out_of_scope") {
				t.Fatalf("refusal with a failing log: status %d: %s", w.Code, w.Body)
			}
			m := env.do("GET", "/metrics", "")
			if !strings.Contains(m.Body.String(), "refusal_log_errors_total 1\n") {
				t.Errorf("refusal_log_errors_total is not 1:\n%s", grepLines(m.Body.String(), "refusal_log"))
			}
			// refusals_total counts the delivered refusals, as the log does.
			if !strings.Contains(m.Body.String(), `refusals_total{reason="out_of_scope"} 2`+"\n") {
				t.Errorf("refusals_total, want 2 delivered out_of_scope:\n%s", grepLines(m.Body.String(), "refusals_total"))
			}
		})
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
