package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

// startService starts the real wiring of `serve` on 127.0.0.1:0 over the
// sample textbook and returns its base URL.
func startService(t *testing.T, edit func(*Config)) (string, *Main) {
	t.Helper()
	base, s, closeFn := startServiceTB(t, edit)
	t.Cleanup(closeFn)
	return base, s
}

// startBenchService starts the wiring for a benchmark: no rate limit, the
// refusal log discarded.
func startBenchService(b *testing.B, docs string) (string, func()) {
	base, _, closeFn := startServiceTB(b, func(c *Config) {
		c.Docs = docs
		c.RefusalLog = os.DevNull
	})
	return base, closeFn
}

func startServiceTB(t testing.TB, edit func(*Config)) (string, *Main, func()) {
	t.Helper()
	return startServiceLogging(t, edit, io.Discard)
}

// startServiceLogging is startServiceTB with the server's log (JSON lines)
// written to stderr.
func startServiceLogging(t testing.TB, edit func(*Config), stderr io.Writer) (string, *Main, func()) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Data = t.TempDir()
	cfg.Addr = "127.0.0.1:0"
	cfg.ChatRate = 0
	cfg.ChunksRate = 0
	cfg.RefusalLog = filepath.Join(cfg.Data, "refusals.log")
	if edit != nil {
		edit(&cfg)
	}
	s := NewMain(cfg, stderr)
	if err := s.OpenService(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Server.Open(ln); err != nil {
		t.Fatal(err)
	}
	return "http://" + ln.Addr().String(), s, func() {
		s.Server.Shutdown(context.Background())
		s.Close()
	}
}

func postJSON(t *testing.T, url string, body any) (*http.Response, []byte) {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case string:
		r = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		r = bytes.NewReader(j)
	}
	resp, err := http.Post(url, "application/json", r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, data
}

func decodeChat(t *testing.T, data []byte) rag.ChatResponse {
	t.Helper()
	var cr rag.ChatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		t.Fatalf("response %s: %v", data, err)
	}
	return cr
}

func TestServeChat(t *testing.T) {
	scope := filepath.Join(t.TempDir(), "scope.json")
	os.WriteFile(scope, []byte(`[{"topic":"a test exclusion","pattern":"\\bpublishers?\\b"},{"topic":"advanced control theory","pattern":"\\bPID tuning\\b"}]`), 0o644)
	base, s := startService(t, func(c *Config) { c.ScopePatterns = scope })

	t.Run("answer", func(t *testing.T) {
		resp, data := postJSON(t, base+"/api/chat", map[string]string{"question": "How does a LiDAR measure distance?"})
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, data)
		}
		cr := decodeChat(t, data)
		if cr.WasRefusal || len(cr.Sources) == 0 || cr.SessionID == "" || cr.RefusalReason != nil {
			t.Fatalf("want an answer with sources and a session: %s", data)
		}
		if !strings.Contains(strings.ToLower(cr.Answer), "lidar") {
			t.Errorf("answer does not mention the LiDAR: %q", cr.Answer)
		}
		if resp.Header.Get("X-Request-ID") == "" || resp.Header.Get("X-Response-Time") == "" {
			t.Error("missing X-Request-ID or X-Response-Time")
		}
	})
	refusals := []struct {
		name, question, selected string
		want                     rag.RefusalReason
	}{
		{"empty retrieval", "What is a good recipe for banana bread?", "", rag.EmptyRetrieval},
		{"out of scope", "How do publishers send messages on a ROS 2 topic?", "", rag.OutOfScope},
		{"selected text insufficient", "How does a LiDAR measure distance?", "Ducks swim in the pond every morning.", rag.SelectedTextInsufficient},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := postJSON(t, base+"/api/chat", map[string]string{"question": tt.question, "selected_text": tt.selected})
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, data)
			}
			cr := decodeChat(t, data)
			if !cr.WasRefusal || cr.RefusalReason == nil || *cr.RefusalReason != tt.want {
				t.Fatalf("want refusal %s, got %s", tt.want, data)
			}
			if len(cr.Sources) != 0 {
				t.Error("refusal with sources")
			}
		})
	}
	t.Run("insufficient context", func(t *testing.T) {
		// The same wiring with a confidence bar no partial match reaches.
		base2, _ := startService(t, func(c *Config) { c.Tutor.EmptyThreshold = 0.01; c.Tutor.ConfidentThreshold = 1 })
		_, data := postJSON(t, base2+"/api/chat", map[string]string{"question": "What is a ROS 2 topic in Klingon opera?"})
		cr := decodeChat(t, data)
		if !cr.WasRefusal || *cr.RefusalReason != rag.InsufficientContext {
			t.Fatalf("want insufficient_context, got %s", data)
		}
	})
	t.Run("selected text answer", func(t *testing.T) {
		sel := "The stamp field records when the data was captured by the sensor, not when the message was published."
		_, data := postJSON(t, base+"/api/chat", map[string]string{"question": "Does the stamp say when the data was captured or when it was published?", "selected_text": sel})
		cr := decodeChat(t, data)
		if cr.WasRefusal || !strings.Contains(cr.Answer, "captured") || len(cr.Sources) != 0 {
			t.Fatalf("want an answer from the selection without sources, got %s", data)
		}
	})
	t.Run("refusal log", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(s.Config.Data, "refusals.log"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) < 3 {
			t.Fatalf("refusal log has %d lines, want one per refusal: %s", len(lines), b)
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(lines[0]), &ev); err != nil || ev["event"] != "refusal" || len(ev) != 7 {
			t.Errorf("refusal log line %q: %v", lines[0], err)
		}
	})
}

func TestServeValidation(t *testing.T) {
	base, _ := startService(t, nil)
	long := strings.Repeat("a", 1001)
	tests := []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"missing question", map[string]string{}, 400, "validation_error"},
		{"blank question", map[string]string{"question": "   "}, 400, "validation_error"},
		{"question too long", map[string]string{"question": long}, 400, "question_too_long"},
		{"selected text too long", map[string]string{"question": "q", "selected_text": strings.Repeat("b", 5001)}, 400, "selected_text_too_long"},
		{"bad session id", map[string]string{"question": "q", "session_id": "nope"}, 400, "validation_error"},
		{"malformed json", `{"question": `, 400, "validation_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := postJSON(t, base+"/api/chat", tt.body)
			var e struct{ Error, Message string }
			json.Unmarshal(data, &e)
			if resp.StatusCode != tt.status || e.Error != tt.code || e.Message == "" {
				t.Errorf("got %d %s, want %d %s", resp.StatusCode, data, tt.status, tt.code)
			}
		})
	}
	resp, err := http.Post(base+"/api/chat", "text/plain", strings.NewReader(`{"question":"q"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 4 {
		t.Errorf("wrong content type: status %d, want 4xx", resp.StatusCode)
	}
}

func TestServeStreamAndHistory(t *testing.T) {
	base, _ := startService(t, nil)
	body, _ := json.Marshal(map[string]string{"question": "How does a LiDAR measure distance?"})
	resp, err := http.Post(base+"/api/chat/stream", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	var events []string
	var done rag.ChatResponse
	var answer strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
			events = append(events, event)
		case strings.HasPrefix(line, "data: ") && event == "delta":
			var d struct{ Text string }
			json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d)
			answer.WriteString(d.Text)
		case strings.HasPrefix(line, "data: ") && event == "done":
			json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &done)
		}
	}
	if len(events) < 3 || events[0] != "sources" || events[len(events)-1] != "done" {
		t.Fatalf("events %v, want sources, delta..., done", events)
	}
	if done.WasRefusal || answer.String() != done.Answer {
		t.Errorf("streamed %q, done carries %q", answer.String(), done.Answer)
	}

	// The streamed exchange is in the session's history.
	r, err := http.Get(base + "/api/chat/sessions/" + done.SessionID + "/messages")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var hist struct {
		Messages []rag.Message `json:"messages"`
	}
	json.NewDecoder(r.Body).Decode(&hist)
	if r.StatusCode != 200 || len(hist.Messages) != 2 || hist.Messages[0].Role != "user" || hist.Messages[1].Content != done.Answer {
		t.Fatalf("history %d %+v", r.StatusCode, hist)
	}

	// A refusal streams as one done event.
	body, _ = json.Marshal(map[string]string{"question": "Who won the FIFA World Cup in 2022?", "session_id": done.SessionID})
	resp2, err := http.Post(base+"/api/chat/stream", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp2.Body)
	resp2.Body.Close()
	if strings.Count(string(b), "event: ") != 1 || !strings.Contains(string(b), "event: done") || !strings.Contains(string(b), `"was_refusal":true`) {
		t.Errorf("refusal stream: %s", b)
	}

	r404, _ := http.Get(base + "/api/chat/sessions/7d444840-9dc0-11d1-b245-5ffdce74fad2/messages")
	r404.Body.Close()
	if r404.StatusCode != 404 {
		t.Errorf("unknown session: %d", r404.StatusCode)
	}
}

func TestServeChunksHealthCORSRateLimit(t *testing.T) {
	base, s := startService(t, func(c *Config) { c.AdminToken = "s3cret"; c.ChatRate = 2 })
	module := s.Index.Chunks[len(s.Index.Chunks)-1].ModuleID

	get := func(path, token string) *http.Response {
		req, _ := http.NewRequest("GET", base+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if r := get("/api/content/chunks?module_id="+module, ""); r.StatusCode != 401 {
		t.Errorf("chunks without token: %d", r.StatusCode)
	}
	r := get("/api/content/chunks?module_id="+module, "s3cret")
	var chunks struct {
		Chunks []struct{ ID, Text, ModuleID string } `json:"chunks"`
		Total  int                                   `json:"total"`
	}
	json.NewDecoder(r.Body).Decode(&chunks)
	r.Body.Close()
	if r.StatusCode != 200 || chunks.Total == 0 || len(chunks.Chunks) != chunks.Total || len([]rune(chunks.Chunks[0].Text)) > 200 {
		t.Errorf("chunks: %d %+v", r.StatusCode, chunks.Total)
	}
	if r := get("/api/content/chunks", "s3cret"); r.StatusCode != 400 {
		t.Errorf("chunks without module_id: %d", r.StatusCode)
	}

	h := get("/health", "")
	var health map[string]any
	json.NewDecoder(h.Body).Decode(&health)
	h.Body.Close()
	if h.StatusCode != 200 || health["status"] != "healthy" || health["sqlite_connected"] != true {
		t.Errorf("health: %d %v", h.StatusCode, health)
	}

	pre, _ := http.NewRequest("OPTIONS", base+"/api/chat", nil)
	pre.Header.Set("Origin", "http://localhost:3000")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	pr, err := http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	pr.Body.Close()
	if pr.StatusCode/100 != 2 || pr.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
		t.Errorf("preflight: %d %q", pr.StatusCode, pr.Header.Get("Access-Control-Allow-Origin"))
	}

	var last *http.Response
	for i := 0; i < 3; i++ {
		last, _ = postJSON(t, base+"/api/chat", map[string]string{"question": "How does a LiDAR measure distance?"})
	}
	if last.StatusCode != 429 || last.Header.Get("Retry-After") == "" {
		t.Errorf("third chat request in a minute at 2/min: %d, Retry-After %q", last.StatusCode, last.Header.Get("Retry-After"))
	}
	if r := get("/health", ""); r.StatusCode != 200 {
		t.Errorf("health is rate limited: %d", r.StatusCode)
	}

	m := get("/metrics", "")
	mb, _ := io.ReadAll(m.Body)
	m.Body.Close()
	for _, name := range []string{"http_requests_total", "refusals_total", "generator_calls_total", "rate_limited_total"} {
		if !strings.Contains(string(mb), name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
}
