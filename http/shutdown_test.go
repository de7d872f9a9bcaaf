package http

import (
	"context"
	"encoding/json"
	"fmt"
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
			if err := env.srv.Shutdown(context.Background()); err != nil {
				t.Fatalf("Shutdown = %v", err)
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

// stuckTutor ignores its context: it says it has been asked, then waits
// for the test to let it go, as a handler stuck where nothing cancels it.
type stuckTutor struct {
	asked   chan struct{}
	release chan struct{}
}

func (s stuckTutor) Ask(ctx context.Context, req rag.ChatRequest, stream rag.Stream) (rag.ChatResponse, error) {
	s.asked <- struct{}{}
	<-s.release
	return rag.Refusal(rag.EmptyRetrieval, "too late", req.SessionID), nil
}

// When the grace runs out, every plain request still open is answered
// 503 unavailable (the project's error body, Retry-After, the request id
// and, for an allowed origin, the CORS headers): by its handler when the
// cancelled work returns, by the shutdown in its place when it does not.
// Shutdown returns nil, soon after the grace; nothing is recorded.
func TestShutdownAnswersOpenRequests(t *testing.T) {
	const grace = 100 * time.Millisecond
	for _, tc := range []struct {
		name  string
		tutor func(asked chan struct{}, release chan struct{}) rag.Tutor
	}{
		{"work that stops when cancelled", func(asked, _ chan struct{}) rag.Tutor { return cancelledTutor{asked} }},
		{"work that ignores cancellation", func(asked, release chan struct{}) rag.Tutor { return stuckTutor{asked, release} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 3
			asked, release := make(chan struct{}, n), make(chan struct{})
			defer close(release)
			env := newEnv(t, func(c *Config) { c.ShutdownTimeout = grace }, func(s *Server) { s.Tutor = tc.tutor(asked, release) })
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			if err := env.srv.Open(ln); err != nil {
				t.Fatal(err)
			}
			type result struct {
				resp *http.Response
				body string
				err  error
			}
			got := make(chan result, n)
			for i := range n {
				go func() {
					body := jsonBody(t, map[string]string{"question": "How do nodes talk?", "session_id": sid})
					req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/api/chat", strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Origin", "http://localhost:3000")
					req.Header.Set("X-Request-ID", fmt.Sprint("req-", i))
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						got <- result{err: err}
						return
					}
					defer resp.Body.Close()
					b, err := io.ReadAll(resp.Body)
					got <- result{resp, string(b), err}
				}()
			}
			for range n {
				<-asked
			}
			start := time.Now()
			if err := env.srv.Shutdown(context.Background()); err != nil {
				t.Fatalf("Shutdown = %v", err)
			}
			took := time.Since(start)
			t.Logf("grace %s: Shutdown returned after %s", grace, took.Round(time.Millisecond))
			for range n {
				res := <-got
				if res.err != nil {
					t.Fatalf("no answer: %v (body %q)", res.err, res.body)
				}
				var e ErrorBody
				if err := json.Unmarshal([]byte(res.body), &e); err != nil || res.resp.StatusCode != 503 || e.Error != rag.EUNAVAILABLE ||
					!strings.Contains(e.Message, "shutting down") || e.Details == nil {
					t.Errorf("%d %q, want 503 unavailable: shutting down", res.resp.StatusCode, res.body)
				}
				h := res.resp.Header
				if h.Get("Retry-After") != "2" || !strings.HasPrefix(h.Get("X-Request-ID"), "req-") ||
					h.Get("Access-Control-Allow-Origin") != "http://localhost:3000" || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
					t.Errorf("headers %v", h)
				}
			}
			// The bound is generous: the machine may be loaded. The
			// shutdown itself waits at most answerWait+endWait+endDrain.
			if took > grace+2*time.Second {
				t.Errorf("Shutdown took %s with a grace of %s", took, grace)
			}
			if n := env.recorded(t); n != 0 {
				t.Errorf("recorded %d messages", n)
			}
		})
	}
}

// cancelledTutor waits for its context to end, as a language model call
// does, after saying it has been asked.
type cancelledTutor struct{ asked chan struct{} }

func (c cancelledTutor) Ask(ctx context.Context, req rag.ChatRequest, stream rag.Stream) (rag.ChatResponse, error) {
	c.asked <- struct{}{}
	<-ctx.Done()
	return rag.ChatResponse{}, fmt.Errorf("generate: %w", ctx.Err())
}
