package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	rag "github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/web"
	"github.com/textbook-rag/rag/web/browsertest"
)

// browserBook has pages with paragraphs long enough to select.
func browserBook() fstest.MapFS {
	return fstest.MapFS{
		"intro.md": {Data: []byte(`---
id: intro
title: Welcome
sidebar_position: 1
---

# Welcome to the Robotics Primer

This primer walks through how a robot's software is put together, from the processes that read sensors to the messages that carry their readings to the parts of the system that decide what to do next.

Each chapter ends with exercises. Select any sentence on a page and ask the tutor about it; the tutor answers only from this book and says so when a question goes beyond it.

## How to read this book

Read the modules in order: later chapters build on the vocabulary of earlier ones.
`)},
		"module-1/_category_.json": {Data: []byte(`{"label": "Module 1: Messaging", "position": 2}`)},
		"module-1/topics.md": {Data: []byte(`---
id: chapter-2-topics
title: "Chapter 2: Topics"
---

# Chapter 2: Topics

Topics carry streams of messages between processes.

## Publishers & Subscribers

A **publisher** sends messages on a named topic at its own pace, and every subscriber to that topic receives them without the publisher knowing who is listening.

## Quality of Service {#qos}

Reliability and history depth decide what happens when a subscriber falls behind.
` + strings.Repeat("\nFiller paragraph so the page scrolls.\n", 40))},
	}
}

// standIn answers the chat API the way the real server does, over real
// SSE: an answer with a source for ordinary questions, a refusal for
// banana bread, 429 and 503 on request, and sessions it remembers.
type standIn struct {
	mu       sync.Mutex
	sessions map[string][]map[string]any
	requests []rag.ChatRequest
}

func (s *standIn) routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/chat/stream", s.stream)
	mux.HandleFunc("GET /api/chat/sessions/{id}/messages", s.messages)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": code, "message": msg, "details": map[string]any{}})
}

func (s *standIn) stream(w http.ResponseWriter, r *http.Request) {
	var req rag.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, 400, "validation_error", "body must be JSON")
		return
	}
	if err := req.Normalize(); err != nil {
		writeError(w, 400, "validation_error", err.Error())
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	q := strings.ToLower(req.Question)
	switch {
	case strings.Contains(q, "rate limit"):
		w.Header().Set("Retry-After", "7")
		writeError(w, 429, "rate_limited", "too many requests")
		return
	case strings.Contains(q, "server error"):
		writeError(w, 503, "unavailable", "the index is loading")
		return
	}
	if req.SessionID == "" {
		req.SessionID = uuid.NewString()
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	flusher := w.(http.Flusher)
	event := func(name string, v any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
		flusher.Flush()
	}
	var resp rag.ChatResponse
	if strings.Contains(q, "banana") {
		resp = rag.Refusal(rag.OutOfScope, "This topic is outside the scope of this course.\n\nThe Robotics Primer textbook covers:\n- Messaging\n- Simulation\n\nFor baking, please refer to specialized resources.", req.SessionID)
	} else {
		src := rag.Source{ChunkID: "c1", ModuleID: "module-1", ChapterID: "chapter-2-topics", SectionHeading: "Publishers & Subscribers", Anchor: "publishers--subscribers", Score: 0.83}
		answer := "A **publisher** sends messages on a named topic; subscribers receive them.\n\n- It publishes at its own pace\n- It does not know who listens\n\nFor example `node.create_publisher(...)`:\n```python\npub.publish(msg)\n```"
		if req.SelectedText != "" {
			answer = fmt.Sprintf("About the passage you selected (%d characters): it says a publisher does not need to know its subscribers.", len([]rune(req.SelectedText)))
		}
		resp = rag.ChatResponse{Answer: answer, Sources: []rag.Source{src}, SessionID: req.SessionID}
		event("sources", resp.Sources)
		for i := 0; i < len(answer); i += 12 {
			event("delta", map[string]string{"text": answer[i:min(i+12, len(answer))]})
			time.Sleep(10 * time.Millisecond)
		}
	}
	event("done", resp)
	now := time.Now().UTC()
	s.mu.Lock()
	s.sessions[req.SessionID] = append(s.sessions[req.SessionID],
		map[string]any{"role": "user", "content": req.Question, "sources": []rag.Source{}, "was_refusal": false, "refusal_reason": nil, "created_at": now},
		map[string]any{"role": "assistant", "content": resp.Answer, "sources": resp.Sources, "was_refusal": resp.WasRefusal, "refusal_reason": resp.RefusalReason, "created_at": now})
	s.mu.Unlock()
}

func (s *standIn) messages(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	msgs, ok := s.sessions[id]
	s.mu.Unlock()
	if !ok {
		writeError(w, 404, "not_found", "no such session")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"session_id": id, "messages": msgs})
}

// startStandIn serves the book pages and the stand-in API on one origin.
func startStandIn(t *testing.T) (*httptest.Server, *standIn) {
	t.Helper()
	h, err := web.New(browserBook(), web.Options{Title: "Robotics Primer"})
	if err != nil {
		t.Fatal(err)
	}
	api := &standIn{sessions: map[string][]map[string]any{}}
	mux := http.NewServeMux()
	api.routes(mux)
	mux.Handle("/", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, api
}

func TestBrowserScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests skipped in -short mode")
	}
	if browsertest.ChromePath() == "" {
		t.Skip("browser tests skipped: no chromium, chromium-browser or google-chrome on PATH (apt-get install chromium)")
	}
	srv, api := startStandIn(t)
	start := time.Now()
	browsertest.Run(t, srv.URL, browsertest.ArtifactsDir(t))
	t.Logf("browser scenarios took %s", time.Since(start).Round(time.Millisecond))

	api.mu.Lock()
	defer api.mu.Unlock()
	var withSelection int
	for _, r := range api.requests {
		if r.SelectedText != "" {
			withSelection++
			if !strings.Contains(r.SelectedText, "publisher") && !strings.Contains(r.SelectedText, "primer") {
				t.Errorf("selected_text is not the selected paragraph: %q", r.SelectedText)
			}
		}
	}
	if withSelection != 1 {
		t.Errorf("%d requests carried selected_text, want exactly 1 (the question after 'Ask about this')", withSelection)
	}
}

// TestBrowserErrors checks what the reader sees when asking fails: the
// question stays in the box and the message says what to do.
func TestBrowserErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests skipped in -short mode")
	}
	srv, _ := startStandIn(t)
	dir := browsertest.ArtifactsDir(t)
	b := browsertest.NewBrowser(t, dir)

	// A stale session id is forgotten on 404.
	b.Navigate(srv.URL + "/")
	b.Exec(`localStorage.setItem("textbook-rag:session", "00000000-0000-4000-8000-000000000000")`)
	b.Navigate(srv.URL + "/docs/module-1/chapter-2-topics")
	b.OpenPanel()
	b.WaitFor("the stale session to be cleared", `localStorage.getItem("textbook-rag:session") === null && !R.querySelector(".note")`)

	for _, tc := range []struct{ question, want string }{
		{"please rate limit me", "Too many questions — try again in 7 seconds."},
		{"cause a server error", "The tutor is having trouble right now (error 503)."},
	} {
		b.Exec(`R.querySelector(".input").value = ""`)
		b.Exec(`R.querySelector(".input").focus()`)
		errors := browsertest.Eval[int](b, `R.querySelectorAll(".note.error").length`)
		b.Keys(tc.question + "\r")
		b.WaitFor("the error for "+tc.question, fmt.Sprintf(`R.querySelectorAll(".note.error").length > %d`, errors))
		got := browsertest.Eval[string](b, `Array.from(R.querySelectorAll(".note.error")).pop().textContent`)
		if !strings.Contains(got, tc.want) {
			t.Errorf("%q: error %q, want %q", tc.question, got, tc.want)
		}
		if v := browsertest.Eval[string](b, `R.querySelector(".input").value`); v != tc.question {
			t.Errorf("%q: the input holds %q after the error", tc.question, v)
		}
		if n := browsertest.Eval[int](b, `R.querySelectorAll(".msg").length`); n != 0 {
			t.Errorf("%q: a failed question left %d messages", tc.question, n)
		}
	}
	b.Screenshot("11-errors")

	// A selection over 5000 characters is cut, with a note.
	b.Exec(`(() => {
		const p = document.createElement("p"); p.id = "long"; p.textContent = "Long text. ".repeat(600);
		document.querySelector("article").prepend(p);
		const r = document.createRange(); r.selectNodeContents(p);
		const s = document.getSelection(); s.removeAllRanges(); s.addRange(r);
		document.dispatchEvent(new MouseEvent("mouseup", {bubbles: true}));
	})()`)
	b.WaitFor(`the "Ask about this" button`, `!R.querySelector(".ask-selection").hidden`)
	b.ClickAt(`"Ask about this"`, `R.querySelector(".ask-selection")`)
	b.WaitFor("the truncation note", `!R.querySelector(".chip-note").hidden`)
	b.Screenshot("12-long-selection")
	b.ClickAt("the chip's remove button", `R.querySelector(".chip-remove")`)
	b.WaitFor("the chip to go", `R.querySelector(".chip").hidden`)

	// Alt+/ toggles the panel.
	b.Keys("\x1b")
	b.WaitFor("Esc to close", `R.querySelector(".panel").hidden`)
	b.Keys("/", chromedp.ModifierAlt)
	b.WaitFor("Alt+/ to open", `!R.querySelector(".panel").hidden`)
	if ex := b.Exceptions(); len(ex) > 0 {
		t.Errorf("JavaScript exceptions: %q", ex)
	}
}
