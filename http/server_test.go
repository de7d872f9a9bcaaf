package http

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/textbook-rag/rag"
)

const sid = "6f1c2a4e-1b2c-4d5e-8f90-123456789abc"

func TestChat(t *testing.T) {
	tests := []struct {
		name        string
		method      string
		body        string
		contentType string // "" keeps application/json; "-" removes it
		status      int
		code        string // error code, "" for a 200
		refusal     bool
	}{
		{name: "answer", body: `{"question":"How do nodes talk?"}`, status: 200},
		{name: "answer with selection and session", body: `{"question":"  What is this?  ","selected_text":"Nodes talk over topics.","session_id":"` + sid + `"}`, status: 200},
		{name: "refusal is 200", body: `{"question":"please refuse this"}`, status: 200, refusal: true},
		{name: "non-streaming tutor", body: `{"question":"quiet"}`, status: 200},
		{name: "unknown fields ignored", body: `{"question":"hi","extra":1}`, status: 200},
		{name: "charset utf-8 allowed", body: `{"question":"hi"}`, contentType: "application/json; charset=UTF-8", status: 200},
		{name: "empty question", body: `{"question":""}`, status: 400, code: "validation_error"},
		{name: "blank question", body: `{"question":"   \n "}`, status: 400, code: "validation_error"},
		{name: "missing question", body: `{}`, status: 400, code: "validation_error"},
		{name: "question too long", body: `{"question":"` + strings.Repeat("é", 1001) + `"}`, status: 400, code: "question_too_long"},
		{name: "question at limit", body: `{"question":"` + strings.Repeat("é", 1000) + `"}`, status: 200},
		{name: "selected text too long", body: `{"question":"q","selected_text":"` + strings.Repeat("a", 5001) + `"}`, status: 400, code: "selected_text_too_long"},
		{name: "blank selected text is none", body: `{"question":"q","selected_text":"   "}`, status: 200},
		{name: "bad session uuid", body: `{"question":"q","session_id":"not-a-uuid"}`, status: 400, code: "validation_error"},
		{name: "malformed json", body: `{"question":`, status: 400, code: "validation_error"},
		{name: "json syntax error", body: `{"question" "x"}`, status: 400, code: "validation_error"},
		{name: "json array", body: `["q"]`, status: 400, code: "validation_error"},
		{name: "question is a number", body: `{"question":42}`, status: 400, code: "validation_error"},
		{name: "two objects", body: `{"question":"a"}{"question":"b"}`, status: 400, code: "validation_error"},
		{name: "null body", body: `null`, status: 400, code: "validation_error"},
		{name: "empty body", body: ``, status: 400, code: "validation_error"},
		{name: "invalid utf-8", body: "{\"question\":\"caf\xe9\"}", status: 400, code: "validation_error"},
		{name: "wrong content type", body: `{"question":"q"}`, contentType: "text/plain", status: 415, code: "unsupported_media_type"},
		{name: "form content type", body: `question=q`, contentType: "application/x-www-form-urlencoded", status: 415, code: "unsupported_media_type"},
		{name: "missing content type", body: `{"question":"q"}`, contentType: "-", status: 415, code: "unsupported_media_type"},
		{name: "latin-1 charset", body: `{"question":"q"}`, contentType: "application/json; charset=latin1", status: 415, code: "unsupported_media_type"},
		{name: "oversized body", body: `{"question":"q","selected_text":"` + strings.Repeat("a", 70<<10) + `"}`, status: 413, code: "payload_too_large"},
		{name: "upstream error is 502 with safe message", body: `{"question":"boom"}`, status: 502, code: "openai_error"},
		{name: "GET not allowed", method: "GET", status: 405, code: "method_not_allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, nil)
			method := tc.method
			if method == "" {
				method = "POST"
			}
			r := httptest.NewRequest(method, "/api/chat", strings.NewReader(tc.body))
			switch tc.contentType {
			case "":
				r.Header.Set("Content-Type", "application/json")
			case "-":
			default:
				r.Header.Set("Content-Type", tc.contentType)
			}
			w := httptest.NewRecorder()
			env.h.ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			if tc.code != "" {
				e := decode[map[string]any](t, w)
				if e["error"] != tc.code {
					t.Errorf("error %v, want %s", e["error"], tc.code)
				}
				if _, ok := e["message"].(string); !ok {
					t.Errorf("no message: %v", e)
				}
				if _, ok := e["details"].(map[string]any); !ok {
					t.Errorf("details not an object: %v", e)
				}
				if strings.Contains(w.Body.String(), "secret") {
					t.Errorf("internal detail leaked: %s", w.Body)
				}
				if n := env.recorded(t); n != 0 {
					t.Errorf("a failed request recorded %d messages", n)
				}
				return
			}
			resp := decode[rag.ChatResponse](t, w)
			if _, err := uuid.Parse(resp.SessionID); err != nil {
				t.Errorf("session_id %q: %v", resp.SessionID, err)
			}
			if resp.WasRefusal != tc.refusal {
				t.Errorf("was_refusal %v, want %v", resp.WasRefusal, tc.refusal)
			}
			if tc.refusal {
				if resp.RefusalReason == nil || *resp.RefusalReason != rag.OutOfScope || len(resp.Sources) != 0 {
					t.Errorf("bad refusal %+v", resp)
				}
			} else if resp.RefusalReason != nil || len(resp.Sources) == 0 || resp.Answer == "" {
				t.Errorf("bad answer %+v", resp)
			}
			if got := env.messages(t, resp.SessionID); got != 2 {
				t.Errorf("history holds %d messages, want 2", got)
			}
		})
	}
}

func TestChatHistoryRoundTrip(t *testing.T) {
	env := newEnv(t, nil)
	w := env.do("POST", "/api/chat", `{"question":"How do nodes talk?","session_id":"`+strings.ToUpper(sid)+`"}`)
	if w.Code != 200 {
		t.Fatalf("chat: %d %s", w.Code, w.Body)
	}
	if got := decode[rag.ChatResponse](t, w).SessionID; got != sid {
		t.Fatalf("session id %q, want canonical %q", got, sid)
	}
	env.clock.Advance(time.Second)
	if w := env.do("POST", "/api/chat/stream", `{"question":"refuse me","session_id":"`+sid+`"}`); w.Code != 200 {
		t.Fatalf("stream: %d %s", w.Code, w.Body)
	}

	w = env.do("GET", "/api/chat/sessions/"+sid+"/messages", "")
	if w.Code != 200 {
		t.Fatalf("messages: %d %s", w.Code, w.Body)
	}
	var got struct {
		SessionID string `json:"session_id"`
		Messages  []struct {
			Role          string             `json:"role"`
			Content       string             `json:"content"`
			Sources       []rag.Source       `json:"sources"`
			WasRefusal    bool               `json:"was_refusal"`
			RefusalReason *rag.RefusalReason `json:"refusal_reason"`
			CreatedAt     time.Time          `json:"created_at"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.SessionID != sid || len(got.Messages) != 4 {
		t.Fatalf("got %s", w.Body)
	}
	want := []struct {
		role, content string
		refusal       bool
		sources       int
	}{
		{"user", "How do nodes talk?", false, 0},
		{"assistant", "Nodes talk.", false, 1},
		{"user", "refuse me", false, 0},
		{"assistant", "This topic is outside the scope of this course.", true, 0},
	}
	for i, m := range got.Messages {
		if m.Role != want[i].role || m.Content != want[i].content || m.WasRefusal != want[i].refusal || len(m.Sources) != want[i].sources || m.Sources == nil {
			t.Errorf("message %d = %+v, want %+v", i, m, want[i])
		}
		if i > 0 && m.CreatedAt.Before(got.Messages[i-1].CreatedAt) {
			t.Errorf("message %d out of order", i)
		}
	}
	if r := got.Messages[3].RefusalReason; r == nil || *r != rag.OutOfScope {
		t.Errorf("refusal reason %v", r)
	}
	if !strings.Contains(w.Body.String(), `"refusal_reason":null`) {
		t.Errorf("answers should carry refusal_reason null: %s", w.Body)
	}

	for _, tc := range []struct {
		name, id string
		status   int
		code     string
	}{
		{"bad uuid", "nope", 400, "validation_error"},
		{"braced uuid", "%7B" + sid + "%7D", 400, "validation_error"},
		{"urn uuid", "urn:uuid:" + sid, 400, "validation_error"},
		{"unknown session", uuid.NewString(), 404, "not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := env.do("GET", "/api/chat/sessions/"+tc.id+"/messages", "")
			if w.Code != tc.status || decode[map[string]any](t, w)["error"] != tc.code {
				t.Errorf("got %d %s", w.Code, w.Body)
			}
		})
	}
}

func TestHistoryWriteFailure(t *testing.T) {
	tests := []struct {
		name, path, question string
	}{
		{"chat answer", "/api/chat", "How do nodes talk?"},
		{"chat refusal", "/api/chat", "refuse"},
		{"stream refusal", "/api/chat/stream", "refuse"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, nil)
			env.history.failAppend = true
			w := env.do("POST", tc.path, jsonBody(t, map[string]string{"question": tc.question}))
			if w.Code != 500 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			e := decode[ErrorBody](t, w)
			if e.Error != "internal_error" {
				t.Errorf("code %q", e.Error)
			}
			for _, leak := range []string{"Nodes talk", "outside the scope", "secret"} {
				if strings.Contains(w.Body.String(), leak) {
					t.Errorf("body leaks %q: %s", leak, w.Body)
				}
			}
			if !strings.Contains(env.logs.String(), "secret path") {
				t.Errorf("the cause was not logged")
			}
		})
	}

	t.Run("closed database", func(t *testing.T) {
		env := newEnv(t, nil)
		if err := env.history.History.Close(); err != nil {
			t.Fatal(err)
		}
		w := env.do("POST", "/api/chat", `{"question":"How do nodes talk?"}`)
		if w.Code != 500 || decode[ErrorBody](t, w).Error != "internal_error" || strings.Contains(w.Body.String(), "Nodes talk") {
			t.Errorf("got %d %s", w.Code, w.Body)
		}
	})

	t.Run("stream answer ends with error event", func(t *testing.T) {
		env := newEnv(t, nil)
		env.history.failAppend = true
		w := env.do("POST", "/api/chat/stream", `{"question":"How do nodes talk?"}`)
		evs := parseSSE(t, w.Body.String())
		if got := eventNames(evs); got != "sources,delta,delta,error" {
			t.Fatalf("events %s", got)
		}
		var e ErrorBody
		if err := json.Unmarshal([]byte(evs[3].Data), &e); err != nil || e.Error != "internal_error" || e.Details == nil {
			t.Errorf("error event %q", evs[3].Data)
		}
	})
}

func TestChatStream(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		status   int
		events   string
		code     string // JSON error code when not streaming
		refusal  bool
		wantText string
	}{
		{name: "answer", body: `{"question":"How do nodes talk?"}`, status: 200, events: "sources,delta,delta,done", wantText: "Nodes talk."},
		{name: "non-streaming tutor still streams", body: `{"question":"quiet"}`, status: 200, events: "sources,delta,done", wantText: "Quiet answer."},
		{name: "refusal is a single done", body: `{"question":"refuse"}`, status: 200, events: "done", refusal: true},
		{name: "validation error is JSON", body: `{"question":""}`, status: 400, code: "validation_error"},
		{name: "too long is JSON", body: `{"question":"` + strings.Repeat("a", 1001) + `"}`, status: 400, code: "question_too_long"},
		{name: "tutor error before streaming is JSON", body: `{"question":"boom"}`, status: 502, code: "openai_error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, nil)
			w := env.do("POST", "/api/chat/stream", tc.body)
			if w.Code != tc.status {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if tc.code != "" {
				if e := decode[ErrorBody](t, w); e.Error != tc.code {
					t.Errorf("code %q, want %q", e.Error, tc.code)
				}
				return
			}
			if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
				t.Errorf("Content-Type %q", ct)
			}
			if !w.Flushed {
				t.Errorf("events were not flushed")
			}
			evs := parseSSE(t, w.Body.String())
			if got := eventNames(evs); got != tc.events {
				t.Fatalf("events %s, want %s", got, tc.events)
			}
			var text strings.Builder
			for _, ev := range evs {
				switch ev.Name {
				case "sources":
					var src []rag.Source
					if err := json.Unmarshal([]byte(ev.Data), &src); err != nil || len(src) != 1 || src[0].ChunkID != "c1" {
						t.Errorf("sources %q", ev.Data)
					}
				case "delta":
					var d map[string]string
					if err := json.Unmarshal([]byte(ev.Data), &d); err != nil {
						t.Fatal(err)
					}
					text.WriteString(d["text"])
				}
			}
			var done rag.ChatResponse
			if err := json.Unmarshal([]byte(evs[len(evs)-1].Data), &done); err != nil {
				t.Fatal(err)
			}
			if done.WasRefusal != tc.refusal || done.SessionID == "" {
				t.Errorf("done %+v", done)
			}
			if !tc.refusal && (text.String() != tc.wantText || done.Answer != tc.wantText) {
				t.Errorf("text %q, done %q, want %q", text.String(), done.Answer, tc.wantText)
			}
			if got := env.messages(t, done.SessionID); got != 2 {
				t.Errorf("history holds %d messages", got)
			}
		})
	}
}

// TestChatStreamLive reads the events over a real connection.
func TestChatStreamLive(t *testing.T) {
	env := newEnv(t, nil)
	ts := httptest.NewServer(env.h)
	defer ts.Close()
	res, err := http.Post(ts.URL+"/api/chat/stream", "application/json", strings.NewReader(`{"question":"How do nodes talk?"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if got := eventNames(parseSSE(t, string(body))); got != "sources,delta,delta,done" {
		t.Fatalf("events %s", got)
	}
	if res.Header.Get("X-Request-ID") == "" || res.Header.Get("X-Response-Time") == "" {
		t.Errorf("headers %v", res.Header)
	}
}

// TestStreamDisconnectMidway: a reader who leaves after the first event
// gets nothing recorded, and no error is logged.
func TestStreamDisconnectMidway(t *testing.T) {
	env := newEnv(t, nil)
	ts := httptest.NewServer(env.h)
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/chat/stream", strings.NewReader(`{"question":"midway"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 512)
	n, _ := res.Body.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "event: sources\n") {
		t.Fatalf("first bytes %q", buf[:n])
	}
	cancel()
	res.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(env.logs.String(), `"msg":"request"`) {
		if time.Now().After(deadline) {
			t.Fatal("request did not finish")
		}
		time.Sleep(10 * time.Millisecond)
	}
	logs := env.logs.String()
	if strings.Contains(logs, `"level":"ERROR"`) || !strings.Contains(logs, `"status":499`) {
		t.Errorf("logs: %s", logs)
	}
	if n := env.recorded(t); n != 0 {
		t.Errorf("an undelivered answer was recorded (%d messages)", n)
	}
}

func TestClientDisconnect(t *testing.T) {
	for _, path := range []string{"/api/chat", "/api/chat/stream"} {
		t.Run(path, func(t *testing.T) {
			env := newEnv(t, nil)
			ctx, cancel := context.WithCancel(context.Background())
			r := httptest.NewRequestWithContext(ctx, "POST", path, strings.NewReader(`{"question":"block"}`))
			r.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			done := make(chan struct{})
			go func() { env.h.ServeHTTP(w, r); close(done) }()
			time.Sleep(20 * time.Millisecond)
			cancel()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("handler did not return")
			}
			if w.Code == 500 || strings.Contains(w.Body.String(), "internal_error") {
				t.Errorf("got %d %s", w.Code, w.Body)
			}
			logs := env.logs.String()
			if strings.Contains(logs, `"level":"ERROR"`) {
				t.Errorf("disconnect logged as error: %s", logs)
			}
			if !strings.Contains(logs, `"status":499`) {
				t.Errorf("access log lacks 499: %s", logs)
			}
			if n := env.recorded(t); n != 0 {
				t.Errorf("an unanswered exchange was recorded (%d messages)", n)
			}
		})
	}
}

func TestChunks(t *testing.T) {
	tests := []struct {
		name   string
		token  string
		query  string
		auth   string
		status int
		code   string
		ids    string
	}{
		{name: "no token configured", query: "?module_id=module-1", status: 200, ids: "a,b"},
		{name: "chapter filter", query: "?module_id=module-1&chapter_id=chapter-2", status: 200, ids: "b"},
		{name: "empty module is the book root", query: "?module_id=", status: 200, ids: "r"},
		{name: "unknown module is empty", query: "?module_id=nope", status: 200, ids: ""},
		{name: "missing module_id", query: "", status: 400, code: "validation_error"},
		{name: "missing module_id with chapter", query: "?chapter_id=chapter-1", status: 400, code: "validation_error"},
		{name: "invalid utf-8", query: "?module_id=%ff", status: 400, code: "validation_error"},
		{name: "token required, none given", token: "s3cret", query: "?module_id=module-1", status: 401, code: "unauthorized"},
		{name: "token required, wrong", token: "s3cret", query: "?module_id=module-1", auth: "Bearer nope", status: 401, code: "unauthorized"},
		{name: "token required, wrong scheme", token: "s3cret", query: "?module_id=module-1", auth: "Basic s3cret", status: 401, code: "unauthorized"},
		{name: "token required, right", token: "s3cret", query: "?module_id=module-1", auth: "Bearer s3cret", status: 200, ids: "a,b"},
		{name: "token checked before validation", token: "s3cret", query: "", status: 401, code: "unauthorized"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, func(c *Config) { c.AdminToken = tc.token })
			var opts []reqOpt
			if tc.auth != "" {
				opts = append(opts, header("Authorization", tc.auth))
			}
			w := env.do("GET", "/api/content/chunks"+tc.query, "", opts...)
			if w.Code != tc.status {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if tc.code != "" {
				if e := decode[ErrorBody](t, w); e.Error != tc.code {
					t.Errorf("code %q", e.Error)
				}
				return
			}
			var got struct {
				Chunks []map[string]any `json:"chunks"`
				Total  int              `json:"total"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, c := range got.Chunks {
				ids = append(ids, c["id"].(string))
				for _, k := range []string{"text", "module_id", "chapter_id", "section_heading", "chunk_index"} {
					if _, ok := c[k]; !ok {
						t.Errorf("chunk lacks %s", k)
					}
				}
				if c["id"] == "a" {
					text := c["text"].(string)
					if text != longText[:len(strings.Repeat("é", 150))+50] {
						t.Errorf("preview %q", text)
					}
				}
			}
			if strings.Join(ids, ",") != tc.ids || got.Total != len(ids) || got.Chunks == nil {
				t.Errorf("got %s", w.Body)
			}
		})
	}
}

func TestPreview(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""}, {"abc", "abc"}, {strings.Repeat("ж", 200), strings.Repeat("ж", 200)}, {strings.Repeat("ж", 201), strings.Repeat("ж", 200)},
	} {
		if got := preview(tc.in, 200); got != tc.want {
			t.Errorf("preview(%d runes) has %d bytes", len([]rune(tc.in)), len(got))
		}
	}
}

func TestHealth(t *testing.T) {
	ok := func(context.Context) error { return nil }
	slow := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	failing := func(context.Context) error { return errors.New("dial tcp 10.0.0.5:6333: secret") }
	tests := []struct {
		name   string
		checks []Check
		status int
		errMsg string
	}{
		{name: "no checks", status: 200},
		{name: "all healthy", checks: []Check{{"postgres_connected", ok}, {"qdrant_connected", ok}}, status: 200},
		{name: "one failing", checks: []Check{{"postgres_connected", ok}, {"qdrant_connected", failing}}, status: 503, errMsg: "qdrant_connected: unavailable"},
		{name: "timeout", checks: []Check{{"index_loaded", slow}}, status: 503, errMsg: "index_loaded: timed out"},
		{name: "safe rag message", checks: []Check{{"history_connected", func(context.Context) error {
			return rag.WrapError(rag.EUNAVAILABLE, "history database is locked", errors.New("secret"))
		}}}, status: 503, errMsg: "history_connected: history database is locked"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, func(c *Config) { c.HealthTimeout = 50 * time.Millisecond }, func(s *Server) { s.Checks = tc.checks })
			w := env.do("GET", "/health", "")
			if w.Code != tc.status {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			body := decode[map[string]any](t, w)
			wantStatus := "healthy"
			if tc.status != 200 {
				wantStatus = "unhealthy"
			}
			if body["status"] != wantStatus || body["version"] != rag.Version || body["timestamp"] != "2025-01-02T03:04:05Z" {
				t.Errorf("body %v", body)
			}
			for _, c := range tc.checks {
				if _, ok := body[c.Name].(bool); !ok {
					t.Errorf("no %s in %v", c.Name, body)
				}
			}
			if tc.errMsg != "" && body["error"] != tc.errMsg {
				t.Errorf("error %v, want %q", body["error"], tc.errMsg)
			}
			if strings.Contains(w.Body.String(), "secret") {
				t.Errorf("leak: %s", w.Body)
			}
		})
	}
}

func TestCORS(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		origin     string
		origins    []string
		status     int
		allowOrig  string
		allowMeths bool
	}{
		{name: "preflight allowed origin", method: "OPTIONS", origin: "http://localhost:3000", status: 204, allowOrig: "http://localhost:3000", allowMeths: true},
		{name: "preflight second default origin", method: "OPTIONS", origin: "http://localhost:8001", status: 204, allowOrig: "http://localhost:8001", allowMeths: true},
		{name: "preflight denied origin", method: "OPTIONS", origin: "https://evil.example", status: 204},
		{name: "preflight configured origin", method: "OPTIONS", origin: "https://book.example", origins: []string{"https://book.example"}, status: 204, allowOrig: "https://book.example", allowMeths: true},
		{name: "default origin not allowed when list replaced", method: "OPTIONS", origin: "http://localhost:3000", origins: []string{"https://book.example"}, status: 204},
		{name: "simple request allowed origin", method: "GET", origin: "http://localhost:3000", status: 200, allowOrig: "http://localhost:3000"},
		{name: "simple request denied origin", method: "GET", origin: "https://evil.example", status: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, func(c *Config) {
				if tc.origins != nil {
					c.AllowedOrigins = tc.origins
				}
			})
			w := env.do(tc.method, "/api/chat", "", header("Origin", tc.origin), header("Access-Control-Request-Method", "POST"))
			if tc.method == "GET" {
				w = env.do(tc.method, "/health", "", header("Origin", tc.origin))
			}
			if w.Code != tc.status {
				t.Fatalf("status %d", w.Code)
			}
			if got := w.Header().Get("Access-Control-Allow-Origin"); got != tc.allowOrig {
				t.Errorf("Allow-Origin %q, want %q", got, tc.allowOrig)
			}
			if !strings.Contains(strings.Join(w.Header().Values("Vary"), ","), "Origin") {
				t.Errorf("no Vary: Origin")
			}
			meths := w.Header().Get("Access-Control-Allow-Methods")
			if tc.allowMeths != (meths == "GET, POST, OPTIONS") {
				t.Errorf("Allow-Methods %q", meths)
			}
			if tc.allowMeths && w.Header().Get("Access-Control-Allow-Headers") != "Content-Type, Authorization, X-Request-ID" {
				t.Errorf("Allow-Headers %q", w.Header().Get("Access-Control-Allow-Headers"))
			}
		})
	}
}

func TestRateLimit(t *testing.T) {
	env := newEnv(t, func(c *Config) { c.ChatRatePerMin = 2; c.ChunksRatePerMin = 1; c.TrustProxy = true })
	chat := func(ip string, path string) *httptest.ResponseRecorder {
		return env.do("POST", path, `{"question":"hi"}`, remote(ip+":1234"))
	}
	steps := []struct {
		name       string
		do         func() *httptest.ResponseRecorder
		status     int
		retryAfter string
	}{
		{"first chat", func() *httptest.ResponseRecorder { return chat("192.0.2.1", "/api/chat") }, 200, ""},
		{"stream shares the chat budget", func() *httptest.ResponseRecorder { return chat("192.0.2.1", "/api/chat/stream") }, 200, ""},
		{"third is limited", func() *httptest.ResponseRecorder { return chat("192.0.2.1", "/api/chat") }, 429, "30"},
		{"stream limited too", func() *httptest.ResponseRecorder { return chat("192.0.2.1", "/api/chat/stream") }, 429, "30"},
		{"other client unaffected", func() *httptest.ResponseRecorder { return chat("192.0.2.2", "/api/chat") }, 200, ""},
		{"health is never limited", func() *httptest.ResponseRecorder { return env.do("GET", "/health", "", remote("192.0.2.1:1")) }, 200, ""},
		{"metrics is never limited", func() *httptest.ResponseRecorder { return env.do("GET", "/metrics", "", remote("192.0.2.1:1")) }, 200, ""},
		{"chunks has its own budget", func() *httptest.ResponseRecorder {
			return env.do("GET", "/api/content/chunks?module_id=", "", remote("192.0.2.1:1"))
		}, 200, ""},
		{"chunks limited", func() *httptest.ResponseRecorder {
			return env.do("GET", "/api/content/chunks?module_id=", "", remote("192.0.2.1:1"))
		}, 429, "60"},
		{"forwarded client is distinct", func() *httptest.ResponseRecorder {
			return env.do("POST", "/api/chat", `{"question":"hi"}`, remote("192.0.2.1:1"), header("X-Forwarded-For", "203.0.113.9"))
		}, 200, ""},
		{"an address the client wrote is not trusted", func() *httptest.ResponseRecorder {
			return env.do("POST", "/api/chat", `{"question":"hi"}`, remote("198.51.100.1:1"), header("X-Forwarded-For", "10.9.8.7, 192.0.2.1"))
		}, 429, "30"},
		{"after 10s still limited", func() *httptest.ResponseRecorder {
			env.clock.Advance(10 * time.Second)
			return chat("192.0.2.1", "/api/chat")
		}, 429, "20"},
		{"recovers after clock advance", func() *httptest.ResponseRecorder {
			env.clock.Advance(20 * time.Second)
			return chat("192.0.2.1", "/api/chat")
		}, 200, ""},
		{"one token only", func() *httptest.ResponseRecorder { return chat("192.0.2.1", "/api/chat") }, 429, "30"},
	}
	for _, st := range steps {
		w := st.do()
		if w.Code != st.status {
			t.Fatalf("%s: status %d, want %d: %s", st.name, w.Code, st.status, w.Body)
		}
		if got := w.Header().Get("Retry-After"); got != st.retryAfter {
			t.Errorf("%s: Retry-After %q, want %q", st.name, got, st.retryAfter)
		}
		if st.status == 429 {
			e := decode[ErrorBody](t, w)
			if e.Error != "rate_limited" || fmt.Sprint(e.Details["retry_after_seconds"]) != st.retryAfter {
				t.Errorf("%s: body %s", st.name, w.Body)
			}
		}
	}
}

func TestRateLimitUntrustedProxy(t *testing.T) {
	env := newEnv(t, func(c *Config) { c.ChatRatePerMin = 1 })
	if w := env.do("POST", "/api/chat", `{"question":"hi"}`, header("X-Forwarded-For", "203.0.113.1")); w.Code != 200 {
		t.Fatalf("first: %d", w.Code)
	}
	if w := env.do("POST", "/api/chat", `{"question":"hi"}`, header("X-Forwarded-For", "203.0.113.2")); w.Code != 429 {
		t.Fatalf("spoofed X-Forwarded-For was trusted: %d", w.Code)
	}
}

func TestLimiterEviction(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	l := newLimiter(clock.Now)
	l.setRate("chat", 10)
	for i := range 1000 {
		l.allow("chat", "10.0.0."+strconv.Itoa(i))
	}
	if l.size() != 1000 {
		t.Fatalf("size %d", l.size())
	}
	clock.Advance(61 * time.Second)
	l.allow("chat", "10.0.0.1")
	if l.size() != 1 {
		t.Errorf("idle buckets kept: %d", l.size())
	}
	if ok, _ := l.allow("off", "x"); !ok || l.size() != 1 {
		t.Errorf("a group without a rate must not be limited nor stored")
	}
}

func TestRequestID(t *testing.T) {
	tests := []struct {
		name, given string
		keep        bool
	}{
		{"propagated", "abc-123_x.y:z", true},
		{"absent", "", false},
		{"too long", strings.Repeat("a", 129), false},
		{"max length", strings.Repeat("a", 128), true},
		{"unsafe characters", "abc\" <script>", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, nil)
			for _, path := range []string{"/health", "/api/chat", "/nope"} {
				w := env.do("GET", path, "", header("X-Request-ID", tc.given))
				got := w.Header().Get("X-Request-ID")
				if tc.keep && got != tc.given {
					t.Errorf("%s: id %q, want %q", path, got, tc.given)
				}
				if !tc.keep {
					if _, err := uuid.Parse(got); err != nil {
						t.Errorf("%s: id %q is not a new UUID", path, got)
					}
				}
				rt := w.Header().Get("X-Response-Time")
				if !strings.HasSuffix(rt, "ms") {
					t.Errorf("%s: X-Response-Time %q", path, rt)
				}
			}
		})
	}
}

func TestRouting(t *testing.T) {
	web := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html>reader "+r.URL.Path+"</html>")
	})
	tests := []struct {
		name, method, path string
		web                bool
		status             int
		code               string
		allow              string
	}{
		{name: "unknown api path", method: "GET", path: "/api/nope", status: 404, code: "not_found"},
		{name: "unknown api path with web", method: "GET", path: "/api/nope", web: true, status: 404, code: "not_found"},
		{name: "root without web", method: "GET", path: "/", status: 404, code: "not_found"},
		{name: "root with web", method: "GET", path: "/", web: true, status: 200},
		{name: "widget with web", method: "GET", path: "/widget.js", web: true, status: 200},
		{name: "POST health", method: "POST", path: "/health", web: true, status: 405, code: "method_not_allowed", allow: "GET, HEAD"},
		{name: "DELETE messages", method: "DELETE", path: "/api/chat/sessions/" + sid + "/messages", status: 405, code: "method_not_allowed", allow: "GET, HEAD, OPTIONS"},
		{name: "GET stream", method: "GET", path: "/api/chat/stream", web: true, status: 405, code: "method_not_allowed", allow: "POST, OPTIONS"},
		{name: "PUT chunks", method: "PUT", path: "/api/content/chunks", status: 405, code: "method_not_allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, nil, func(s *Server) {
				if tc.web {
					s.Web = web
				}
			})
			w := env.do(tc.method, tc.path, "")
			if w.Code != tc.status {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if tc.code != "" {
				if e := decode[ErrorBody](t, w); e.Error != tc.code {
					t.Errorf("code %q", e.Error)
				}
			} else if !strings.Contains(w.Body.String(), "reader "+tc.path) {
				t.Errorf("web not served: %s", w.Body)
			}
			if tc.allow != "" && w.Header().Get("Allow") != tc.allow {
				t.Errorf("Allow %q", w.Header().Get("Allow"))
			}
		})
	}
}

func TestPanicRecovery(t *testing.T) {
	env := newEnv(t, nil)
	w := env.do("POST", "/api/chat", `{"question":"panic please"}`)
	if w.Code != 500 {
		t.Fatalf("status %d", w.Code)
	}
	if e := decode[ErrorBody](t, w); e.Error != "internal_error" || strings.Contains(e.Message, "exploded") {
		t.Errorf("body %s", w.Body)
	}
	if w.Header().Get("X-Request-ID") == "" {
		t.Errorf("no request id on the 500")
	}
	if !strings.Contains(env.logs.String(), "tutor exploded") {
		t.Errorf("panic not logged")
	}
	if w := env.do("POST", "/api/chat", `{"question":"still alive?"}`); w.Code != 200 {
		t.Errorf("server did not survive: %d", w.Code)
	}
	if w := env.do("POST", "/api/chat/stream", `{"question":"panic"}`); w.Code != 500 {
		t.Errorf("stream panic: %d", w.Code)
	}
}

type fakeGen struct{}

func (fakeGen) Generate(ctx context.Context, req rag.GenerateRequest, emit func(string) error) (rag.Generated, error) {
	return rag.Generated{Text: "x", Finish: rag.FinishStop}, nil
}

type fakeEmb struct{}

func (fakeEmb) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return make([][]float32, len(texts)), nil
}
func (fakeEmb) Dimension() int { return 3 }
func (fakeEmb) ID() string     { return "fake" }

func TestMetrics(t *testing.T) {
	env := newEnv(t, func(c *Config) { c.ChatRatePerMin = 1 })
	env.do("POST", "/api/chat", `{"question":"refuse"}`)
	env.do("POST", "/api/chat", `{"question":"again"}`)
	env.do("GET", "/api/chat/sessions/"+sid+"/messages", "")
	g := env.srv.Metrics.CountGenerator(fakeGen{})
	_, _ = g.Generate(context.Background(), rag.GenerateRequest{}, nil)
	_, _ = g.Generate(context.Background(), rag.GenerateRequest{}, nil)
	e := env.srv.Metrics.CountEmbedder(fakeEmb{})
	_, _ = e.Embed(context.Background(), []string{"a"})
	if e.Dimension() != 3 {
		t.Errorf("dimension not passed through")
	}

	w := env.do("GET", "/metrics", "")
	if w.Code != 200 {
		t.Fatalf("status %d", w.Code)
	}
	body := w.Body.String()
	for _, want := range []string{
		`http_requests_total{method="POST",route="/api/chat",status="200"} 1`,
		`http_requests_total{method="POST",route="/api/chat",status="429"} 1`,
		`http_requests_total{method="GET",route="/api/chat/sessions/{id}/messages",status="404"} 1`,
		`http_request_duration_seconds_count{route="/api/chat"} 2`,
		`refusals_total{reason="out_of_scope"} 1`,
		`refusals_total{reason="empty_retrieval"} 0`,
		`rate_limited_total{route="/api/chat"} 1`,
		`generator_calls_total 2`,
		`embedder_calls_total 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(body, sid) {
		t.Errorf("raw path used as a label")
	}
	// Many servers coexist: each has its own registry.
	for range 3 {
		_ = NewServer(DefaultConfig()).Handler()
	}
}

func TestErrorTable(t *testing.T) {
	for code, status := range map[string]int{
		"validation_error": 400, "question_too_long": 400, "selected_text_too_long": 400,
		"unauthorized": 401, "not_found": 404, "method_not_allowed": 405, "payload_too_large": 413,
		"unsupported_media_type": 415, "rate_limited": 429, "internal_error": 500,
		"qdrant_error": 502, "openai_error": 502, "unavailable": 503, "something_else": 500,
	} {
		if got := StatusCode(code); got != status {
			t.Errorf("%s → %d, want %d", code, got, status)
		}
	}
	body, status := errorBody(errors.New("secret"))
	if status != 500 || body.Error != "internal_error" || strings.Contains(body.Message, "secret") {
		t.Errorf("plain error → %d %+v", status, body)
	}
	body, status = errorBody(&rag.Error{Code: "weird", Message: "secret"})
	if status != 500 || body.Error != "internal_error" || strings.Contains(body.Message, "secret") {
		t.Errorf("unknown code → %d %+v", status, body)
	}
	if _, status = errorBody(fmt.Errorf("ask: %w", context.DeadlineExceeded)); status != 503 {
		t.Errorf("deadline → %d", status)
	}
}

func TestOpenShutdown(t *testing.T) {
	env := newEnv(t, func(c *Config) { c.ShutdownTimeout = 2 * time.Second })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := env.srv.Open(ln); err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	res, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	if err := env.srv.Shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if _, err := http.Get(url + "/health"); err == nil {
		t.Errorf("still serving after shutdown")
	}
}
