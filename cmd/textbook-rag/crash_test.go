package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/postgres/pgtest"
)

// TestMain lets the crash test run this test binary as the real server:
// with TEXTBOOK_RAG_TEST_SERVE set it is `textbook-rag serve` (main, with
// its arguments) and nothing else; with TEXTBOOK_RAG_TEST_RUN set it is
// `textbook-rag` with its arguments.
func TestMain(m *testing.M) {
	// The tests check words alone, whatever this machine's cache holds;
	// a test that wants the sentence model names it.
	defaultSentenceModel = ""
	var args []string
	switch {
	case os.Getenv("TEXTBOOK_RAG_TEST_SERVE") == "1":
		args = append([]string{"serve"}, os.Args[1:]...)
	case os.Getenv("TEXTBOOK_RAG_TEST_RUN") == "1":
		args = os.Args[1:]
	default:
		// The tests check the default, words alone: a sentence model in
		// the environment is kept for the tests that ask for one.
		sentenceModelDir = os.Getenv("TEXTBOOK_RAG_MODEL")
		os.Unsetenv("TEXTBOOK_RAG_MODEL")
		os.Exit(m.Run())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

var servingLine = regexp.MustCompile(`is serving .* on (http://\S+)`)

// startServer starts the server as a process of its own and returns its
// URL once it serves.
func startServer(t *testing.T, dbURL string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	env := []string{"TEXTBOOK_RAG_TEST_SERVE=1", "DATABASE_URL=" + dbURL}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "TEXTBOOK_RAG_") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
			go func() {
				for sc.Scan() {
				}
			}()
			return cmd, m[1]
		}
	}
	cmd.Wait()
	t.Fatalf("the server did not start: %s", stderr.String())
	return nil, ""
}

// acked is an exchange the server answered with 200.
type acked struct{ session, question, answer string }

// TestCrashKeepsAcknowledgedExchanges runs the server under concurrent
// chat load, kills it with SIGKILL mid-load, restarts it on the same data,
// and checks that every exchange it acknowledged is there and that no
// exchange is half-written.
func TestCrashKeepsAcknowledgedExchanges(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server twice under load")
	}
	stores := map[string]func(t *testing.T) string{
		"sqlite":   func(*testing.T) string { return "" },
		"postgres": func(t *testing.T) string { return pgtest.SchemaURL(t) },
	}
	for name, dbURL := range stores {
		t.Run(name, func(t *testing.T) {
			crashTest(t, dbURL(t))
		})
	}
}

func crashTest(t *testing.T, dbURL string) {
	data := t.TempDir()
	args := []string{"--data", data, "--addr", "127.0.0.1:0", "--rate-limit", "0", "--refusal-log", os.DevNull}
	srv, base := startServer(t, dbURL, args...)

	const clients = 16
	// TEXTBOOK_RAG_CRASH_EXCHANGES sets how many exchanges are acknowledged
	// before the kill, for a longer campaign than the suite's.
	killAfter := int64(400)
	if v, err := strconv.ParseInt(os.Getenv("TEXTBOOK_RAG_CRASH_EXCHANGES"), 10, 64); err == nil && v > 0 {
		killAfter = v
	}
	questions := []string{"How does a LiDAR measure distance?", "How do I create a publisher?", "What is a good recipe for banana bread?", "What does a URDF file describe?"}
	var (
		mu       sync.Mutex
		acks     []acked
		sessions []string
		n        atomic.Int64
		killed   = make(chan struct{})
		wg       sync.WaitGroup
	)
	client := &http.Client{Timeout: 30 * time.Second}
	for c := range clients {
		sid := uuid.NewString()
		sessions = append(sessions, sid)
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-killed:
					return
				default:
				}
				q := fmt.Sprintf("%s (client %d, #%d)", questions[(c+i)%len(questions)], c, i)
				body, _ := json.Marshal(rag.ChatRequest{Question: q, SessionID: sid})
				resp, err := client.Post(base+"/api/chat", "application/json", strings.NewReader(string(body)))
				if err != nil {
					continue // the server is gone: not acknowledged
				}
				var cr rag.ChatResponse
				err = json.NewDecoder(resp.Body).Decode(&cr)
				resp.Body.Close()
				if resp.StatusCode != 200 || err != nil {
					continue
				}
				mu.Lock()
				acks = append(acks, acked{sid, q, cr.Answer})
				mu.Unlock()
				if n.Add(1) == killAfter {
					srv.Process.Signal(syscall.SIGKILL)
					close(killed)
				}
			}
		})
	}
	wg.Wait()
	srv.Wait()

	_, base = startServer(t, dbURL, args...)
	byQuestion := map[string]acked{}
	for _, a := range acks {
		byQuestion[a.question] = a
	}
	found, total := 0, 0
	for _, sid := range sessions {
		var out struct{ Messages []rag.Message }
		out.Messages = sessionMessages(t, base, sid)
		questionOf := map[string]rag.Message{}
		answered := map[string]int{}
		for _, m := range out.Messages {
			if m.Role == "user" {
				questionOf[m.ID] = m
			}
		}
		for _, m := range out.Messages {
			if m.Role != "assistant" {
				continue
			}
			q, ok := questionOf[m.QuestionID]
			if !ok {
				t.Errorf("session %s: answer %s has no question", sid, m.ID)
				continue
			}
			answered[q.ID]++
			if a, ok := byQuestion[q.Content]; ok && a.session == sid && a.answer == m.Content {
				found++
			}
		}
		for id, q := range questionOf {
			if answered[id] != 1 {
				t.Errorf("session %s: question %q has %d answers: half-written", sid, q.Content, answered[id])
			}
		}
		total += len(out.Messages)
	}
	if found != len(acks) {
		t.Errorf("%d of %d acknowledged exchanges survived the kill", found, len(acks))
	}
	t.Logf("%d acknowledged exchanges, all present after SIGKILL; %d messages stored", len(acks), total)
}

// sessionMessages reads a whole session page by page, oldest first.
func sessionMessages(t *testing.T, base, sid string) []rag.Message {
	t.Helper()
	var all []rag.Message
	url := base + "/api/chat/sessions/" + sid + "/messages?limit=500"
	for {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Messages   []rag.Message
			HasMore    bool    `json:"has_more"`
			NextBefore *string `json:"next_before"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if resp.StatusCode != 200 || err != nil {
			t.Fatalf("session %s: status %d, %v", sid, resp.StatusCode, err)
		}
		all = append(page.Messages, all...)
		if !page.HasMore || page.NextBefore == nil {
			return all
		}
		url = base + "/api/chat/sessions/" + sid + "/messages?limit=500&before=" + *page.NextBefore
	}
}
