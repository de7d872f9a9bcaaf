package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
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
sidebar_position: 2
---

# Chapter 2: Topics

Topics carry streams of messages between processes.

## Publishers & Subscribers

A **publisher** sends messages on a named topic at its own pace, and every subscriber to that topic receives them without the publisher knowing who is listening.

## Quality of Service {#qos}

Reliability and history depth decide what happens when a subscriber falls behind.
` + strings.Repeat("\nFiller paragraph so the page scrolls.\n", 40))},
		"module-1/reference.md": {Data: []byte(`---
title: "Chapter 3: Reference"
sidebar_position: 3
---

# Chapter 3: Reference

Every setting of a publisher, in one table wider than a phone, and the command that prints them.

` + wideTable + `

` + "```bash\n" + longCommand + "\n```" + `

A setting such as ` + "`" + `reliability_policy_kind_reliable_with_history_depth_ten` + "`" + ` names itself at length.
`)},
		"module-2/_category_.json": {Data: []byte(`{"label": "Module 2: Simulation", "position": 3}`)},
		"module-2/worlds.md": {Data: []byte(`---
title: "Chapter 4: Worlds"
---

# Chapter 4: Worlds

A world file describes the ground, the light and the models a simulation starts with.
`)},
	}
}

// wideTable and longCommand are wider than a phone: they must scroll
// inside their block, on the page and in an answer, not cut off.
var (
	wideTable   = "| Setting | Type | Default | Range | Unit | Applies to | Since | Notes |\n|---|---|---|---|---|---|---|---|\n| history_depth | integer | 10 | 1-1000 | messages | publishers and subscribers | Foxy | keep-last only |\n| reliability | enum | reliable | reliable, best_effort | none | publishers and subscribers | Foxy | must match |"
	longCommand = "ros2 topic pub --qos-reliability reliable --qos-depth 10 --qos-history keep_last /chatter std_msgs/msg/String '{data: hello from a very long command line}'"
)

// standIn answers the chat API the way the real server does, over real
// SSE: an answer with a source for ordinary questions, a refusal for
// banana bread, 429 and 503 on request, and sessions it remembers.
type standIn struct {
	release  chan struct{} // a "slow" question's first words wait for it
	mu       sync.Mutex
	sessions map[string][]map[string]any
	requests []rag.ChatRequest
	searches []string // the q of each search
}

func (s *standIn) routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/chat/stream", s.stream)
	mux.HandleFunc("GET /api/chat/sessions/{id}/messages", s.messages)
	mux.HandleFunc("GET /api/search", s.search)
}

// search answers like the real site search: the sections closest to q
// (two for the end-of-life question, which the book discusses without
// answering; none otherwise).
func (s *standIn) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	s.mu.Lock()
	s.searches = append(s.searches, q)
	s.mu.Unlock()
	results := []map[string]any{}
	if strings.Contains(strings.ToLower(q), "end of life") {
		results = append(results,
			map[string]any{"title": "Quality of Service", "chapter": "Chapter 2: Topics", "module": "Module 1: Messaging", "path": "module-1/chapter-2-topics", "anchor": "qos", "link": "/docs/module-1/chapter-2-topics#qos", "score": 0.62},
			map[string]any{"title": "How to read this book", "chapter": "Welcome", "module": "", "path": "", "anchor": "how-to-read-this-book", "link": "/docs/#how-to-read-this-book", "score": 0.55})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"query": q, "results": results})
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
	switch {
	case strings.Contains(q, "banana"):
		resp = rag.Refusal(rag.OutOfScope, "This topic is outside the scope of this course.\n\nThe Robotics Primer textbook covers:\n- Messaging\n- Simulation\n\nFor baking, please refer to specialized resources.", req.SessionID)
	case strings.Contains(q, "recipe"):
		resp = rag.Refusal(rag.EmptyRetrieval, "I can only answer questions from the textbook content.", req.SessionID)
	case strings.Contains(q, "end of life"):
		resp = rag.Refusal(rag.InsufficientContext, "I found some related content, but not enough to provide a confident answer.", req.SessionID)
	case strings.Contains(q, "wheel") && req.SelectedText != "":
		resp = rag.Refusal(rag.SelectedTextInsufficient, "The selected text doesn't contain enough information to answer your question.", req.SessionID)
	case strings.Contains(q, "withdrawn"):
		// The tutor withdraws a sentence it had sent: "replace" carries
		// what stands instead, then waits for the test before "done".
		src := rag.Source{ChunkID: "c1", ModuleID: "module-1", ChapterID: "chapter-2-topics", SectionHeading: "Publishers & Subscribers", Anchor: "publishers--subscribers", Score: 0.83, Path: "module-1/chapter-2-topics"}
		resp = rag.ChatResponse{Answer: "From “Publishers & Subscribers”:\n\nA **publisher** sends messages on a named topic.", Sources: []rag.Source{src}, SessionID: req.SessionID}
		event("sources", resp.Sources)
		event("delta", map[string]string{"text": "Publishers shout into the void."})
		event("replace", map[string]any{"text": resp.Answer, "sources": resp.Sources})
		select {
		case <-s.release:
		case <-r.Context().Done():
			return
		}
	case strings.Contains(q, "wide"):
		src := rag.Source{ChunkID: "c3", ModuleID: "module-1", ChapterID: "reference", SectionHeading: "Chapter 3: Reference", Score: 0.9, Path: "module-1/reference"}
		resp = rag.ChatResponse{Answer: "From “Chapter 3: Reference”:\n\n" + wideTable + "\n\n```bash\n" + longCommand + "\n```", Sources: []rag.Source{src}, SessionID: req.SessionID}
		event("sources", resp.Sources)
		event("delta", map[string]string{"text": resp.Answer})
	case strings.Contains(q, "table"):
		src := rag.Source{ChunkID: "c2", ModuleID: "module-1", ChapterID: "chapter-2-topics", SectionHeading: "Quality of Service", Anchor: "qos", Score: 0.9}
		resp = rag.ChatResponse{Answer: markdownAnswer, Sources: []rag.Source{src}, SessionID: req.SessionID}
		event("sources", resp.Sources)
		event("delta", map[string]string{"text": resp.Answer})
	default:
		src := rag.Source{ChunkID: "c1", ModuleID: "module-1", ChapterID: "module-1/chapter-2-topics", SectionHeading: "Publishers & Subscribers", Anchor: "publishers--subscribers", Score: 0.83, Path: "module-1/chapter-2-topics"}
		answer := "A **publisher** sends messages on a named topic; subscribers receive them.\n\n- It publishes at its own pace\n- It does not know who listens\n\nFor example `node.create_publisher(...)`:\n```python\npub.publish(msg)\n```"
		if req.SelectedText != "" {
			answer = fmt.Sprintf("About the passage you selected (%d characters): it says a publisher does not need to know its subscribers.", len([]rune(req.SelectedText)))
		}
		resp = rag.ChatResponse{Answer: answer, Sources: []rag.Source{src}, SessionID: req.SessionID}
		event("sources", resp.Sources)
		if strings.Contains(q, "slow") {
			// An LLM may think for seconds before its first words.
			select {
			case <-s.release:
			case <-r.Context().Done():
				return
			}
		}
		for i := 0; i < len(answer); i += 12 {
			event("delta", map[string]string{"text": answer[i:min(i+12, len(answer))]})
			time.Sleep(10 * time.Millisecond)
		}
	}
	event("done", resp)
	now := time.Now().UTC()
	s.mu.Lock()
	s.sessions[req.SessionID] = append(s.sessions[req.SessionID],
		map[string]any{"id": uuid.NewString(), "role": "user", "content": req.Question, "sources": []rag.Source{}, "was_refusal": false, "refusal_reason": nil, "created_at": now},
		map[string]any{"id": uuid.NewString(), "role": "assistant", "content": resp.Answer, "sources": resp.Sources, "was_refusal": resp.WasRefusal, "refusal_reason": resp.RefusalReason, "created_at": now})
	s.mu.Unlock()
}

// messages pages like the real server: the latest ?limit= messages, or
// those before ?before=, with has_more and next_before.
func (s *standIn) messages(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	msgs, ok := s.sessions[id]
	s.mu.Unlock()
	if !ok {
		writeError(w, 404, "not_found", "no such session")
		return
	}
	limit := rag.DefaultMessagesPage
	if l := r.URL.Query().Get("limit"); l != "" {
		limit, _ = strconv.Atoi(l)
	}
	end := len(msgs)
	if before := r.URL.Query().Get("before"); before != "" {
		end = slices.IndexFunc(msgs, func(m map[string]any) bool { return m["id"] == before })
	}
	start := max(0, end-limit)
	body := map[string]any{"session_id": id, "messages": msgs[start:end], "limit": limit, "has_more": start > 0, "next_before": nil, "next_after": nil}
	if start > 0 {
		body["next_before"] = msgs[start]["id"]
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

// startStandIn serves the book pages and the stand-in API on one origin.
func startStandIn(t *testing.T) (*httptest.Server, *standIn) {
	t.Helper()
	h, err := newPage(browserBook(), web.Options{Title: "Robotics Primer"})
	if err != nil {
		t.Fatal(err)
	}
	api := &standIn{sessions: map[string][]map[string]any{}, release: make(chan struct{}, 1)}
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
		t.Skip(browsertest.SkipMessage)
	}
	srv, api := startStandIn(t)
	start := time.Now()
	cfg := browsertest.DefaultConfig()
	cfg.Prefix = "standin-"
	browsertest.RunConfig(t, srv.URL, browsertest.ArtifactsDir(t), cfg)
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
	srv, api := startStandIn(t)
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

	// The failed question, asked again from the box, keeps its request id,
	// so a try that reached the history is not stored twice; another
	// question has an id of its own.
	errors := browsertest.Eval[int](b, `R.querySelectorAll(".note.error").length`)
	b.Exec(`R.querySelector(".input").focus()`)
	b.Keys("\r")
	b.WaitFor("the error of the second try", fmt.Sprintf(`R.querySelectorAll(".note.error").length > %d`, errors))
	api.mu.Lock()
	ids := map[string][]string{}
	sessions := map[string][]string{}
	for _, r := range api.requests {
		ids[r.Question] = append(ids[r.Question], r.RequestID)
		sessions[r.Question] = append(sessions[r.Question], r.SessionID)
	}
	api.mu.Unlock()
	if tries := ids["cause a server error"]; len(tries) != 2 || tries[0] == "" || tries[0] != tries[1] {
		t.Errorf("request ids of the two tries of one question: %q, want one id twice", tries)
	}
	// The server keys a retry by session and request id: both tries name one.
	if tries := sessions["cause a server error"]; len(tries) != 2 || tries[0] == "" || tries[0] != tries[1] {
		t.Errorf("session ids of the two tries of one question: %q, want one id twice", tries)
	}
	if other := ids["please rate limit me"]; len(other) != 1 || other[0] == "" || other[0] == ids["cause a server error"][0] {
		t.Errorf("request id of another question: %q", other)
	}

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

// markdownAnswer has every kind of Markdown an answer quotes from a book,
// and HTML that must stay text.
const markdownAnswer = "Two **QoS** settings decide what a *late* subscriber gets:\n\n" +
	"| Setting | Choices | Default |\n|---|---|:---:|\n" +
	"| Reliability | `RELIABLE`, `BEST_EFFORT` | reliable |\n" +
	"| History depth | keep last *N* | `10` |\n\n" +
	"---\n\n" +
	"1. Pick the reliability.\n2. Pick the depth:\n   - small for sensors\n   - large for commands\n\n" +
	"```python\nqos = QoSProfile(depth=10)\n```\n\n" +
	`Text such as <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=1</script> stays text.`

// rendered describes how the newest answer's Markdown came out.
type rendered struct {
	Headers, Rows, CellCode, Em, Strong, Rules, Items, Nested, Code, Unsafe int
	Pwned                                                                   bool
	Text                                                                    string
}

// TestBrowserReader checks what a student meets on the reader's page, at
// desktop and phone widths: the launcher clear of the text, a refusal
// labelled by its reason with its next step, the typing indicator, answer
// Markdown rendered safely, a source link that lands on its heading with
// the tutor out of the way and one tap back, and selection quotes that
// survive a reload.
func TestBrowserReader(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests skipped in -short mode")
	}
	if browsertest.ChromePath() == "" {
		t.Skip(browsertest.SkipMessage)
	}
	for _, v := range []browsertest.Viewport{browsertest.Desktop, browsertest.Phone} {
		t.Run(v.Name, func(t *testing.T) { readerScenario(t, v) })
	}
}

func readerScenario(t *testing.T, v browsertest.Viewport) {
	srv, api := startStandIn(t)
	b := browsertest.NewBrowser(t, browsertest.ArtifactsDir(t))
	b.SetViewport(v)
	shot := func(name string) { b.Screenshot("reader-" + v.Name + "-" + name) }
	b.Navigate(srv.URL + "/docs/module-1/chapter-2-topics")

	// The launcher stays clear of the reading column: beside it on a wide
	// screen, a bar under it on a phone; the page's last line scrolls
	// clear of it.
	type place struct {
		Left, Top, Width, ColumnRight, LastBottom, ViewWidth, ViewHeight float64
		Opaque                                                           bool
	}
	p := browsertest.Eval[place](b, `(() => {
		scrollTo(0, document.documentElement.scrollHeight);
		const l = R.querySelector(".launcher").getBoundingClientRect();
		const items = document.querySelectorAll("article p, article li, article h2, .pager a");
		const bg = getComputedStyle(R.querySelector(".launcher")).backgroundColor;
		return {left: l.left, top: l.top, width: l.width, columnRight: document.querySelector("article").getBoundingClientRect().right,
			lastBottom: items[items.length - 1].getBoundingClientRect().bottom, viewWidth: innerWidth, viewHeight: innerHeight,
			opaque: !/rgba\(.*, 0\)$|transparent/.test(bg)};
	})()`)
	shot("01-launcher")
	if p.LastBottom > p.Top {
		t.Errorf("the page's last line (bottom %.0f) stays under the launcher (top %.0f)", p.LastBottom, p.Top)
	}
	if v.Mobile {
		if p.Width < p.ViewWidth || p.Top < p.ViewHeight-64 || !p.Opaque {
			t.Errorf("on a phone the launcher should be an opaque bar along the bottom: %+v", p)
		}
	} else if p.Left < p.ColumnRight {
		t.Errorf("the launcher (left %.0f) floats over the reading column (right %.0f)", p.Left, p.ColumnRight)
	}

	// A question about a selection the selection cannot answer: its own
	// label, and one button to ask the whole book instead.
	b.Navigate(srv.URL + "/")
	selected := b.SelectParagraph()
	b.ClickAt(`"Ask about this"`, `R.querySelector(".ask-selection")`)
	b.WaitFor("the selection chip", `!R.querySelector(".panel").hidden && !R.querySelector(".chip").hidden`)
	const wheel = "Which joint type is for a wheel?"
	b.Ask(wheel)
	if got := lastLabel(b); got.Reason != "selected_text_insufficient" || got.Label != browsertest.RefusalLabels[got.Reason] || got.Next != "Ask without it?" || got.Button != "Ask the whole textbook" {
		t.Errorf("selected_text_insufficient refusal shows %+v", got)
	}
	shot("02-selection-refusal")
	before := browsertest.Eval[int](b, `R.querySelectorAll(".msg.assistant").length`)
	b.ClickAt("Ask the whole textbook", `Array.from(R.querySelectorAll(".refusal-action")).pop()`)
	b.WaitFor("the answer from the whole book", fmt.Sprintf(`R.querySelectorAll(".msg.assistant:not(.pending):not(.refusal)").length > 0 && R.querySelectorAll(".msg.assistant").length > %d && R.querySelector(".panel").getAttribute("aria-busy") !== "true"`, before))
	api.mu.Lock()
	last := api.requests[len(api.requests)-1]
	api.mu.Unlock()
	if last.Question != wheel || last.SelectedText != "" {
		t.Errorf("re-asking sent %+v, want the same question without the selection", last)
	}
	shot("03-reask")

	// A typing indicator until the first words of a slow answer.
	b.Exec(`R.querySelector(".input").focus()`)
	b.Keys("A slow question about topics?\r")
	b.WaitFor("the typing indicator", `(() => { const t = R.querySelector(".msg.assistant.pending .typing"); return t && t.getBoundingClientRect().height > 0; })()`)
	shot("04-typing")
	if got := browsertest.Eval[string](b, `R.querySelector(".msg.assistant.pending").innerText`); !strings.Contains(got, "Looking in the textbook") {
		t.Errorf("the pending answer shows %q", got)
	}
	api.release <- struct{}{}
	b.WaitFor("the slow answer", `!R.querySelector(".msg.assistant.pending") && R.querySelector(".panel").getAttribute("aria-busy") !== "true"`)

	// Every refusal reason has its own label and next step.
	for _, tc := range []struct{ question, reason, button string }{
		{"What is a good recipe for bread?", "empty_retrieval", ""},
		{"When is the end of life of this release?", "insufficient_context", "Edit the question"},
		{"How do I bake banana bread?", "out_of_scope", ""},
	} {
		b.Ask(tc.question)
		got := lastLabel(b)
		if got.Reason != tc.reason || got.Label != browsertest.RefusalLabels[tc.reason] || got.Next == "" || got.Button != tc.button {
			t.Errorf("%q: refusal shows %+v, want %s under %q with button %q", tc.question, got, tc.reason, browsertest.RefusalLabels[tc.reason], tc.button)
		}
	}
	// After a refusal for want of context, and only after it, the book's
	// closest sections: the site search's, as links into the book.
	b.WaitFor("where the book discusses it", `R.querySelectorAll(".msg.refusal[data-reason=insufficient_context] .where a").length === 2`)
	where := browsertest.Eval[[]string](b, `Array.from(R.querySelectorAll(".msg.refusal[data-reason=insufficient_context] .where a")).map(a => a.textContent + " " + new URL(a.href).pathname + new URL(a.href).hash)`)
	if want := []string{"Quality of Service /docs/module-1/chapter-2-topics#qos", "How to read this book /docs/#how-to-read-this-book"}; !slices.Equal(where, want) {
		t.Errorf("where the book discusses it: %q, want %q", where, want)
	}
	if got := browsertest.Eval[string](b, `R.querySelector(".msg.refusal[data-reason=insufficient_context] .where .sources-label").textContent`); got != "Where the book discusses this" {
		t.Errorf("the links are under %q", got)
	}
	if n := browsertest.Eval[int](b, `R.querySelectorAll(".msg.refusal:not([data-reason=insufficient_context]) .where").length`); n != 0 {
		t.Errorf("%d other refusals offer sections", n)
	}
	api.mu.Lock()
	searches := slices.Clone(api.searches)
	api.mu.Unlock()
	if want := []string{"When is the end of life of this release?"}; !slices.Equal(searches, want) {
		t.Errorf("the widget searched %q, want only the insufficient_context refusal's question", searches)
	}
	b.Exec(`R.querySelector(".msg.refusal[data-reason=insufficient_context] .refusal-action").scrollIntoView({block: "center"})`)
	b.ClickAt("Edit the question", `R.querySelector(".msg.refusal[data-reason=insufficient_context] .refusal-action")`)
	if got := browsertest.Eval[string](b, `R.activeElement === R.querySelector(".input") ? R.querySelector(".input").value : ""`); got != "When is the end of life of this release?" {
		t.Errorf(`"Edit the question" left %q in the focused box`, got)
	}
	b.Exec(`R.querySelector(".input").value = ""`)
	b.Exec(`Array.from(R.querySelectorAll(".msg.refusal")).at(-2).scrollIntoView({block: "start"})`)
	shot("05-refusal-labels")

	// Answer Markdown becomes HTML; HTML in the answer stays text.
	b.Ask("Show me the QoS table")
	md := browsertest.Eval[rendered](b, `(() => {
		const m = Array.from(R.querySelectorAll(".msg.assistant .body")).pop();
		const n = s => m.querySelectorAll(s).length;
		return {Headers: n("table thead th"), Rows: n("table tbody tr"), CellCode: n("td code"), Em: n("em"), Strong: n("strong"),
			Rules: n("hr"), Items: n("ol > li"), Nested: n("ol > li > ul > li"), Code: n("pre > code"), Unsafe: n("img, script"),
			Pwned: !!window.__pwned, Text: m.innerText};
	})()`)
	want := rendered{Headers: 3, Rows: 2, CellCode: 3, Em: 2, Strong: 1, Rules: 1, Items: 2, Nested: 2, Code: 1}
	text := md.Text
	md.Text = ""
	if md != want {
		t.Errorf("rendered answer: %+v, want %+v", md, want)
	}
	for _, bad := range []string{"|", "---", "**", "```"} {
		if strings.Contains(text, bad) {
			t.Errorf("rendered answer shows raw %q: %q", bad, text)
		}
	}
	if !strings.Contains(text, `<img src=x onerror="window.__pwned=1">`) {
		t.Errorf("HTML in the answer is not shown as text: %q", text)
	}
	b.Exec(`Array.from(R.querySelectorAll(".msg.assistant")).pop().scrollIntoView({block: "start"})`)
	shot("06-markdown")

	// The source link lands on its heading, visible, the tutor collapsed.
	b.Exec(`Array.from(R.querySelectorAll(".msg.assistant .sources a")).pop().scrollIntoView({block: "center"})`)
	b.ClickAt("the source link", `Array.from(R.querySelectorAll(".msg.assistant .sources a")).pop()`)
	b.WaitFor("the QoS heading at the top of the page", `location.hash === "#qos" && (() => {
		const r = document.getElementById("qos").getBoundingClientRect();
		return r.top >= document.querySelector(".topbar").getBoundingClientRect().bottom - 1 && r.top < 200;
	})()`)
	type landing struct {
		Hit, PanelHidden          bool
		Launcher                  string
		Bottom, Top, Left, Column float64
	}
	l := browsertest.Eval[landing](b, `(() => {
		const h = document.getElementById("qos"), r = h.getBoundingClientRect();
		const at = document.elementFromPoint(r.left + 10, r.top + r.height / 2);
		return {hit: !!at && (at === h || h.contains(at)), panelHidden: R.querySelector(".panel").hidden,
			launcher: R.querySelector(".launcher").getAttribute("aria-label"), bottom: r.bottom,
			top: R.querySelector(".launcher").getBoundingClientRect().top, left: R.querySelector(".launcher").getBoundingClientRect().left,
			column: document.querySelector("article").getBoundingClientRect().right};
	})()`)
	shot("07-source-heading")
	if !l.Hit || !l.PanelHidden || l.Bottom > l.Top {
		t.Errorf("after the source link the heading is covered: %+v", l)
	}
	if !strings.HasPrefix(l.Launcher, "Back to the conversation") {
		t.Errorf("the launcher offers %q, want the way back to the conversation", l.Launcher)
	}
	if !v.Mobile && l.Left < l.Column {
		t.Errorf("the way back (left %.0f) floats over the reading column (right %.0f)", l.Left, l.Column)
	}

	// One tap back: the conversation, at the answer the reader left.
	b.ClickAt("the launcher", `R.querySelector(".launcher")`)
	b.WaitFor("the conversation at the table answer", `!R.querySelector(".panel").hidden && (() => {
		const a = Array.from(R.querySelectorAll(".msg.assistant")).find(m => m.querySelector("table"));
		if (!a) return false;
		const r = a.getBoundingClientRect(), log = R.querySelector(".log").getBoundingClientRect();
		return r.bottom > log.top + 20 && r.top < log.bottom - 20;
	})()`)
	shot("08-back-to-conversation")

	// After a reload each question comes back with the quote it was about.
	b.Navigate(srv.URL + "/docs/module-1/chapter-2-topics")
	b.OpenPanel()
	b.WaitFor("the conversation after reload", `R.querySelectorAll(".msg.user").length === 7`)
	quotes := browsertest.Eval[[]string](b, `Array.from(R.querySelectorAll(".msg.user")).map(m => (m.querySelector(".quote") || {}).textContent || "")`)
	wantQuote := []rune(strings.Join(strings.Fields(selected), " "))
	if len(wantQuote) > 280 {
		wantQuote = append(wantQuote[:280], '…')
	}
	if quotes[0] != string(wantQuote) || strings.Join(quotes[1:], "") != "" {
		t.Errorf("quotes after reload: %q, want only the first question's %q", quotes, string(wantQuote))
	}
	labels := browsertest.Eval[map[string]string](b, `Object.fromEntries(Array.from(R.querySelectorAll(".msg.refusal")).map(m => [m.dataset.reason, m.querySelector(".refusal-label .label-text").textContent]))`)
	for reason, label := range browsertest.RefusalLabels {
		if labels[reason] != label {
			t.Errorf("after reload the %s refusal is labelled %q, want %q", reason, labels[reason], label)
		}
	}
	b.Exec(`R.querySelector(".log").scrollTop = 0`)
	shot("09-reload-quote")

	// A refusal shown again from the history offers its sections on demand.
	b.Exec(`R.querySelector(".msg.refusal[data-reason=insufficient_context]").scrollIntoView({block: "center"})`)
	b.ClickAt("where does the book discuss this", `R.querySelector(".msg.refusal[data-reason=insufficient_context] .where-load")`)
	b.WaitFor("the sections after reload", `R.querySelectorAll(".msg.refusal[data-reason=insufficient_context] .where a").length === 2`)
	shot("10-reload-where")
	b.ClickAt("the first section", `R.querySelector(".msg.refusal[data-reason=insufficient_context] .where a")`)
	b.WaitFor("the section's heading", `location.hash === "#qos" && R.querySelector(".panel").hidden`)
	if ex := b.Exceptions(); len(ex) > 0 {
		t.Errorf("JavaScript exceptions: %q", ex)
	}
}

type refusalShown struct{ Reason, Label, Next, Button string }

// lastLabel reads the newest refusal's reason, label and next step.
func lastLabel(b *browsertest.Browser) refusalShown {
	return browsertest.Eval[refusalShown](b, `(() => {
		const m = Array.from(R.querySelectorAll(".msg.assistant")).pop();
		const t = s => (m.querySelector(s) || {}).textContent || "";
		return {Reason: m.dataset.reason || "", Label: t(".refusal-label .label-text"), Next: t(".refusal-next span"), Button: t(".refusal-action")};
	})()`)
}

// TestBrowserReplace: a replace event swaps the text shown so far for its
// own, with its sources, before done arrives.
func TestBrowserReplace(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests skipped in -short mode")
	}
	if browsertest.ChromePath() == "" {
		t.Skip(browsertest.SkipMessage)
	}
	srv, api := startStandIn(t)
	b := browsertest.NewBrowser(t, browsertest.ArtifactsDir(t))
	b.Navigate(srv.URL + "/docs/module-1/chapter-2-topics")
	b.OpenPanel()
	b.Exec(`R.querySelector(".input").focus()`)
	b.Keys("Was the answer withdrawn?\r")
	b.WaitFor("the replaced text while the answer is still open",
		`(() => { const m = R.querySelector(".msg.assistant"); return m && m.innerText.includes("sends messages on a named topic") && !m.innerText.includes("shout") && R.querySelector(".panel").getAttribute("aria-busy") === "true"; })()`)
	api.release <- struct{}{}
	b.WaitFor("the answer to end", `R.querySelector(".panel").getAttribute("aria-busy") !== "true"`)
	got := browsertest.Eval[string](b, `R.querySelector(".msg.assistant").innerText`)
	if strings.Contains(got, "shout") || !strings.Contains(got, "sends messages on a named topic") {
		t.Errorf("the answer shows %q", got)
	}
	if n := browsertest.Eval[int](b, `R.querySelectorAll(".msg.assistant .sources a").length`); n != 1 {
		t.Errorf("%d source links, want the replace event's one", n)
	}
	if ex := b.Exceptions(); len(ex) > 0 {
		t.Errorf("JavaScript exceptions: %q", ex)
	}
}

// TestBrowserHistoryPages: a long session opens on its latest page, and
// "Show earlier messages" adds the pages before it, in order, until the
// session's start.
func TestBrowserHistoryPages(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests skipped in -short mode")
	}
	if browsertest.ChromePath() == "" {
		t.Skip(browsertest.SkipMessage)
	}
	srv, api := startStandIn(t)
	const exchanges = 120
	id := uuid.NewString()
	var msgs []map[string]any
	for i := range exchanges {
		msgs = append(msgs,
			map[string]any{"id": uuid.NewString(), "role": "user", "content": fmt.Sprintf("question %d", i), "sources": []rag.Source{}, "was_refusal": false, "refusal_reason": nil},
			map[string]any{"id": uuid.NewString(), "role": "assistant", "content": fmt.Sprintf("answer %d", i), "sources": []rag.Source{}, "was_refusal": false, "refusal_reason": nil})
	}
	api.mu.Lock()
	api.sessions[id] = msgs
	api.mu.Unlock()

	b := browsertest.NewBrowser(t, browsertest.ArtifactsDir(t))
	b.Navigate(srv.URL + "/docs/module-1/chapter-2-topics")
	b.Exec(`localStorage.setItem("textbook-rag:session", ` + strconv.Quote(id) + `)`)
	b.Navigate(srv.URL + "/docs/module-1/chapter-2-topics")
	b.OpenPanel()
	questions := func() []string {
		return browsertest.Eval[[]string](b, `Array.from(R.querySelectorAll(".msg.user .text")).map(e => e.textContent)`)
	}
	b.WaitFor("the latest page", `R.querySelectorAll(".msg.user").length > 0`)
	for page, want := range []int{50, 100, 120} {
		got := questions()
		if len(got) != want || got[0] != fmt.Sprintf("question %d", exchanges-want) || got[len(got)-1] != fmt.Sprintf("question %d", exchanges-1) {
			t.Fatalf("page %d: %d questions shown (%q … %q), want the last %d", page, len(got), got[0], got[len(got)-1], want)
		}
		button := browsertest.Eval[int](b, `R.querySelectorAll(".earlier").length`)
		if want == exchanges {
			if button != 0 {
				t.Errorf("the whole session is shown and %d earlier buttons are left", button)
			}
			break
		}
		if button != 1 || !browsertest.Eval[bool](b, `R.querySelector(".log").firstElementChild.matches(".earlier")`) {
			t.Fatalf("page %d: %d earlier buttons, want one above the messages", page, button)
		}
		b.Exec(`R.querySelector(".earlier").scrollIntoView()`)
		b.ClickAt("show earlier messages", `R.querySelector(".earlier")`)
		b.WaitFor("the earlier page", fmt.Sprintf(`R.querySelectorAll(".msg.user").length > %d`, want))
	}
	if ex := b.Exceptions(); len(ex) > 0 {
		t.Errorf("JavaScript exceptions: %q", ex)
	}
}

// TestBrowserPhoneLayout checks the reader's page and the widget at
// desktop and phone widths: on a phone the chapters are behind a menu
// button, the content comes first, and the menu opens on the current
// chapter; wide tables and long code lines scroll inside their block, on
// the page and in an answer, and nothing widens the page. Screenshots:
// layout-<size>-*.
func TestBrowserPhoneLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests skipped in -short mode")
	}
	if browsertest.ChromePath() == "" {
		t.Skip(browsertest.SkipMessage)
	}
	for _, v := range []browsertest.Viewport{browsertest.Desktop, browsertest.Phone} {
		t.Run(v.Name, func(t *testing.T) { layoutScenario(t, v) })
	}
}

// box is where an element is and whether it scrolls sideways.
type box struct {
	Shown bool
	// Shadowed: a background that scrolls with the content, the shadow
	// that says there is more to the side.
	Shadowed                   bool
	Left, Right, Top, Bottom   float64
	ScrollWidth, ClientWidth   float64
	ViewWidth, PageScrollWidth float64
}

const boxJS = `(e => { if (!e) return {shown: false}; const r = e.getBoundingClientRect(); return {
	shown: r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden", shadowed: getComputedStyle(e).backgroundAttachment.includes("local"),
	left: r.left, right: r.right, top: r.top, bottom: r.bottom, scrollWidth: e.scrollWidth, clientWidth: e.clientWidth,
	viewWidth: innerWidth, pageScrollWidth: document.documentElement.scrollWidth}; })`

func boxOf(b *browsertest.Browser, js string) box {
	return browsertest.Eval[box](b, boxJS+"("+js+")")
}

func layoutScenario(t *testing.T, v browsertest.Viewport) {
	srv, _ := startStandIn(t)
	b := browsertest.NewBrowser(t, browsertest.ArtifactsDir(t))
	b.SetViewport(v)
	shot := func(name string) { b.Screenshot("layout-" + v.Name + "-" + name) }
	b.Navigate(srv.URL + "/docs/module-1/chapter-2-topics")
	shot("01-page")
	nav, menu, title := `document.querySelector(".sidebar")`, `document.querySelector(".menu")`, `document.querySelector("article h1")`
	if !v.Mobile {
		if n, m := boxOf(b, nav), boxOf(b, menu); !n.Shown || m.Shown {
			t.Errorf("on a wide screen the chapters show beside the text and no menu button: sidebar %+v, menu %+v", n, m)
		}
	} else {
		// The chapter's title is on the first screen, the chapters behind
		// the menu button.
		if n, m, h := boxOf(b, nav), boxOf(b, menu), boxOf(b, title); n.Shown || !m.Shown || h.Top > 200 {
			t.Fatalf("on a phone the chapters should be behind a menu button and the text first: sidebar %+v, menu %+v, title %+v", n, m, h)
		}
		if got := browsertest.Eval[string](b, menu+`.getAttribute("aria-expanded") + " " + `+menu+`.getAttribute("aria-controls")`); got != "false sidebar" {
			t.Errorf("the menu button says aria-expanded aria-controls = %q", got)
		}
		b.ClickAt("the menu button", menu)
		b.WaitFor("the chapters", `document.querySelector(".sidebar").getBoundingClientRect().height > 0`)
		shot("02-menu-open")
		type menuState struct {
			Expanded     string
			Open         []string
			Current      string
			CurrentShown bool
		}
		got := browsertest.Eval[menuState](b, `(() => {
			const cur = document.querySelector('.sidebar a[aria-current="page"]'), r = cur.getBoundingClientRect();
			return {Expanded: document.querySelector(".menu").getAttribute("aria-expanded"),
				Open: Array.from(document.querySelectorAll(".sidebar details[open] > summary")).map(s => s.textContent),
				Current: cur.textContent, CurrentShown: r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && document.elementFromPoint(r.left + 5, r.top + r.height / 2) === cur};
		})()`)
		want := menuState{Expanded: "true", Open: []string{"Module 1: Messaging"}, Current: "Chapter 2: Topics", CurrentShown: true}
		if got.Expanded != want.Expanded || !slices.Equal(got.Open, want.Open) || got.Current != want.Current || !got.CurrentShown {
			t.Errorf("the open menu: %+v, want %+v (the current chapter's module open, the others closed, the chapter in view)", got, want)
		}
		// Esc closes it and gives the focus back to the button.
		b.Keys("\x1b")
		b.WaitFor("Esc to close the chapters", `document.querySelector(".sidebar").getBoundingClientRect().height === 0 && document.activeElement === document.querySelector(".menu")`)
		// A chapter picked from the menu opens with the menu closed.
		b.ClickAt("the menu button", menu)
		b.WaitFor("the chapters", `document.querySelector(".sidebar").getBoundingClientRect().height > 0`)
		b.ClickAt("Chapter 3", `Array.from(document.querySelectorAll(".sidebar a")).find(a => a.textContent === "Chapter 3: Reference")`)
		b.WaitFor("chapter 3", `location.pathname === "/docs/module-1/reference" && document.readyState === "complete"`)
		if n := boxOf(b, nav); n.Shown {
			t.Errorf("the menu stays open on the chapter picked: %+v", n)
		}
	}

	// Wide tables and long code lines scroll inside their block; a long
	// name in the text breaks; nothing widens the page past the screen.
	b.Navigate(srv.URL + "/docs/module-1/reference")
	width := float64(v.Width)
	for _, sel := range []string{"article table", "article pre", "article p code"} {
		e := boxOf(b, `document.querySelector("`+sel+`")`)
		if !e.Shown || e.Right > width+0.5 || e.PageScrollWidth > width || e.ViewWidth > width {
			t.Errorf("page %s: %+v: it must stay inside the screen (%v wide), and the page not scroll sideways", sel, e, width)
		}
		if sel != "article p code" && !e.Shadowed {
			t.Errorf("page %s: no shadow says it scrolls", sel)
		}
		if v.Mobile && sel != "article p code" && e.ScrollWidth <= e.ClientWidth {
			t.Errorf("page %s on a phone: %+v: it is wider than the screen and must scroll inside its block", sel, e)
		}
	}
	b.Exec(`document.querySelector("article table").scrollIntoView({block: "center"})`)
	shot("03-wide-page")

	b.OpenPanel()
	b.Ask("Show me the wide reference table")
	b.Exec(`Array.from(R.querySelectorAll(".msg.assistant")).pop().scrollIntoView({block: "start"})`)
	shot("04-wide-answer")
	panel := boxOf(b, `R.querySelector(".log")`)
	if panel.ScrollWidth > panel.ClientWidth {
		t.Errorf("the conversation scrolls sideways: %+v", panel)
	}
	for _, sel := range []string{".table", "pre"} {
		e := boxOf(b, `Array.from(R.querySelectorAll(".msg.assistant .body `+sel+`")).pop()`)
		if !e.Shown || e.Left < panel.Left-0.5 || e.Right > panel.Right+0.5 {
			t.Errorf("answer %s: %+v lies outside the conversation (%v-%v)", sel, e, panel.Left, panel.Right)
		}
		if e.ScrollWidth <= e.ClientWidth || !e.Shadowed {
			t.Errorf("answer %s: %+v: it is wider than the panel and must scroll inside its block, with a shadow that says so", sel, e)
		}
	}
	if ex := b.Exceptions(); len(ex) > 0 {
		t.Errorf("JavaScript exceptions: %q", ex)
	}
}
