package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// stalledLLM is an OpenAI-compatible chat API that never answers: each
// call waits until its client gives up. It says how many calls wait.
type stalledLLM struct {
	waiting atomic.Int64
	arrived chan struct{}
}

func (s *stalledLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	s.waiting.Add(1)
	defer s.waiting.Add(-1)
	s.arrived <- struct{}{}
	select {
	case <-r.Context().Done():
	case <-time.After(time.Minute):
	}
}

// TestSIGTERMAnswersEveryone sends the real server SIGTERM while plain
// and streamed chat requests wait on a language model that never
// answers. When --shutdown-timeout runs out, every plain request gets a
// 503 JSON error (unavailable, with Retry-After), every stream its error
// event, and the process exits at once, with status 0 and no error
// message. The time from SIGTERM to exit is logged; the target is the
// grace plus half a second (see docs/notes), checked here only against a
// generous bound.
func TestSIGTERMAnswersEveryone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server as a process")
	}
	const plain, streams = 6, 2
	llm := &stalledLLM{arrived: make(chan struct{}, plain+streams)}
	api := httptest.NewServer(llm)
	defer api.Close()
	const grace = 2 * time.Second
	cmd, base := startServer(t, "", "--data", t.TempDir(), "--addr", "127.0.0.1:0", "--rate-limit", "0", "--refusal-log", os.DevNull,
		"--generator", "openai", "--openai-base-url", api.URL+"/v1", "--openai-api-key", "test-key", "--llm-timeout", "1m",
		"--shutdown-timeout", grace.String())

	type result struct {
		stream     bool
		status     int
		retryAfter string
		body       string
		err        error
	}
	results := make(chan result, plain+streams)
	var wg sync.WaitGroup
	for i := range plain + streams {
		wg.Go(func() {
			path := "/api/chat"
			if i >= plain {
				path = "/api/chat/stream"
			}
			body := `{"question":"How does a LiDAR measure distance?"}`
			resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
			if err != nil {
				results <- result{stream: i >= plain, err: err}
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			results <- result{i >= plain, resp.StatusCode, resp.Header.Get("Retry-After"), string(b), err}
		})
	}
	for i := range plain + streams {
		select {
		case <-llm.arrived:
		case <-time.After(30 * time.Second):
			for len(results) > 0 {
				r := <-results
				t.Logf("finished early: %+v", r)
			}
			t.Fatalf("%d of %d requests reached the language model", i, plain+streams)
		}
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var exitErr error
	select {
	case exitErr = <-exited:
	case <-time.After(grace + 10*time.Second):
		t.Fatalf("the server did not exit within %s of SIGTERM", grace+10*time.Second)
	}
	took := time.Since(start)
	wg.Wait()
	close(results)

	stderr := cmd.Stderr.(*strings.Builder).String() // complete once Wait returned
	t.Logf("SIGTERM with --shutdown-timeout %s and %d plain requests and %d streams open: exited after %s", grace, plain, streams, took.Round(time.Millisecond))
	var ee *exec.ExitError
	if errors.As(exitErr, &ee) {
		t.Errorf("exit status %d after SIGTERM, want 0; stderr:\n%s", ee.ExitCode(), stderr)
	} else if exitErr != nil {
		t.Errorf("wait: %v", exitErr)
	}
	if strings.Contains(stderr, "textbook-rag: ") {
		t.Errorf("the server printed an error at exit:\n%s", stderr)
	}
	if took > grace+3*time.Second {
		t.Errorf("exited %s after SIGTERM: far past the grace of %s", took, grace)
	}
	for r := range results {
		if r.err != nil {
			t.Errorf("stream %v: no answer: %v (body %q)", r.stream, r.err, r.body)
			continue
		}
		var e struct {
			Error   string         `json:"error"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		}
		if r.stream {
			data := r.body[strings.LastIndex(r.body, "data: ")+len("data: "):]
			if r.status != 200 || !strings.Contains(r.body, "event: error") || json.Unmarshal([]byte(strings.TrimSpace(data)), &e) != nil || e.Error != "unavailable" {
				t.Errorf("stream: %d %q, want an error event unavailable", r.status, r.body)
			}
			continue
		}
		if err := json.Unmarshal([]byte(r.body), &e); err != nil || r.status != 503 || e.Error != "unavailable" || e.Details == nil || r.retryAfter == "" {
			t.Errorf("plain request: %d %q (Retry-After %q), want 503 unavailable with the error body and Retry-After", r.status, r.body, r.retryAfter)
		}
	}
}
