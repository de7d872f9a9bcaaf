package http

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/textbook-rag/rag"
)

// slowTutor is a generator that outlasts any drain: it says it has been
// asked, streams the sources when told to, then waits for the request to
// end.
type slowTutor struct {
	asked   chan struct{}
	sources bool
}

func (s slowTutor) Ask(ctx context.Context, req rag.ChatRequest, stream rag.Stream) (rag.ChatResponse, error) {
	if s.sources {
		if err := stream.Sources(testSources); err != nil {
			return rag.ChatResponse{}, err
		}
	}
	close(s.asked)
	<-ctx.Done()
	return rag.ChatResponse{}, ctx.Err()
}

// A shutdown whose drain deadline passes while a stream is open ends the
// stream with an error event (unavailable: ask again) before the
// connection closes, not with a bare cut, whether the stream had sent an
// event or not; nothing is recorded.
func TestShutdownEndsOpenStreams(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sources bool
		want    string
	}{
		{"midway", true, "sources,error"},
		{"before the first event", false, "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tu := slowTutor{asked: make(chan struct{}), sources: tc.sources}
			env := newEnv(t, func(c *Config) { c.ShutdownTimeout = 50 * time.Millisecond }, func(s *Server) { s.Tutor = tu })
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			if err := env.srv.Open(ln); err != nil {
				t.Fatal(err)
			}
			type result struct {
				status int
				body   string
				err    error
			}
			got := make(chan result, 1)
			go func() {
				body := jsonBody(t, map[string]string{"question": "How do nodes talk?", "session_id": sid})
				resp, err := http.Post("http://"+ln.Addr().String()+"/api/chat/stream", "application/json", strings.NewReader(body))
				if err != nil {
					got <- result{err: err}
					return
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				got <- result{resp.StatusCode, string(b), err}
			}()
			<-tu.asked
			if err := env.srv.Shutdown(context.Background()); err == nil {
				t.Fatal("the shutdown did not time out: the test needs a stream left open")
			}
			res := <-got
			if res.err != nil {
				t.Fatalf("the stream was cut: %v (body %q)", res.err, res.body)
			}
			evs := parseSSE(t, res.body)
			if res.status != 200 || eventNames(evs) != tc.want {
				t.Fatalf("status %d, events %q, want %s: %s", res.status, eventNames(evs), tc.want, res.body)
			}
			var e ErrorBody
			if err := json.Unmarshal([]byte(evs[len(evs)-1].Data), &e); err != nil {
				t.Fatal(err)
			}
			if e.Error != rag.EUNAVAILABLE || !strings.Contains(e.Message, "shutting down") {
				t.Errorf("error event %+v, want unavailable: shutting down", e)
			}
			if n := env.recorded(t); n != 0 {
				t.Errorf("recorded %d messages", n)
			}
		})
	}
}
