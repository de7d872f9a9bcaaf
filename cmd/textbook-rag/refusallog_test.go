package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

// brokenHistory fails every write, as a full disk does.
type brokenHistory struct{ rag.History }

func (brokenHistory) AppendExchange(ctx context.Context, sid string, q, a rag.Message) error {
	return errors.New("database or disk is full")
}

// A refusal the reader never received (its history write failed, so the
// reader got a 500) leaves no refusal log line; once the history writes
// again, the next refusal is logged.
func TestRefusalLoggedOnlyWhenRecorded(t *testing.T) {
	for _, path := range []string{"/api/chat", "/api/chat/stream"} {
		t.Run(path, func(t *testing.T) {
			base, s := startService(t, nil)
			s.Server.History = brokenHistory{s.History}
			q := map[string]string{"question": "What is a good recipe for banana bread?"}
			resp, data := postJSON(t, base+path, q)
			if resp.StatusCode != http.StatusInternalServerError {
				t.Fatalf("status %d with a failing history: %s", resp.StatusCode, data)
			}
			if b, _ := os.ReadFile(s.Config.RefusalLog); len(b) != 0 {
				t.Errorf("a refusal the reader did not receive was logged: %s", b)
			}
			s.Server.History = s.History
			resp, data = postJSON(t, base+path, q)
			if resp.StatusCode != http.StatusOK || !bytes.Contains(data, []byte("empty_retrieval")) {
				t.Fatalf("status %d: %s", resp.StatusCode, data)
			}
			b, _ := os.ReadFile(s.Config.RefusalLog)
			if n := strings.Count(string(b), "\n"); n != 1 || !strings.Contains(string(b), `"refusal_reason":"empty_retrieval"`) {
				t.Errorf("refusal log after a recorded refusal: %q, want one line", b)
			}
		})
	}
}
