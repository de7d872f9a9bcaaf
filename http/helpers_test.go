package http

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/sqlite"
)

// testTutor answers or refuses depending on the question:
//
//	contains "refuse" → out_of_scope refusal
//	contains "panic"  → panics
//	contains "boom"   → openai_error with a secret cause
//	contains "block"  → waits for the request to be canceled
//	contains "midway" → streams sources, waits for cancellation, answers
//	contains "quiet"  → answers without streaming
//	otherwise         → streams sources and two deltas, answers "Nodes talk."
type testTutor struct{}

var testSources = []rag.Source{{ChunkID: "c1", ModuleID: "module-1", ChapterID: "chapter-1", SectionHeading: "Nodes", Anchor: "nodes", Score: 0.91}}

func (testTutor) Ask(ctx context.Context, req rag.ChatRequest, stream rag.Stream) (rag.ChatResponse, error) {
	q := req.Question
	switch {
	case strings.Contains(q, "refuse"):
		return rag.Refusal(rag.OutOfScope, "This topic is outside the scope of this course.", req.SessionID), nil
	case strings.Contains(q, "panic"):
		panic("tutor exploded")
	case strings.Contains(q, "boom"):
		return rag.ChatResponse{}, rag.WrapError(rag.EOPENAI, "The language model is unavailable.", errors.New("secret upstream detail sk-123"))
	case strings.Contains(q, "block"):
		<-ctx.Done()
		return rag.ChatResponse{}, ctx.Err()
	case strings.Contains(q, "midway"):
		// Streams the sources, then waits for the reader to leave and
		// answers anyway, ignoring the failed writes.
		_ = stream.Sources(testSources)
		<-ctx.Done()
		_ = stream.Delta("too late")
		return rag.ChatResponse{Answer: "too late", Sources: testSources, SessionID: req.SessionID}, nil
	case strings.Contains(q, "quiet"):
		return rag.ChatResponse{Answer: "Quiet answer.", Sources: testSources, SessionID: req.SessionID}, nil
	}
	if stream != nil {
		if err := stream.Sources(testSources); err != nil {
			return rag.ChatResponse{}, err
		}
		for _, d := range []string{"Nodes ", "talk."} {
			if err := stream.Delta(d); err != nil {
				return rag.ChatResponse{}, err
			}
		}
	}
	return rag.ChatResponse{Answer: "Nodes talk.", Sources: testSources, SessionID: req.SessionID}, nil
}

// testHistory is the real SQLite history with a switch that makes
// AppendExchange fail, and the list of ids the server generated so a test
// can tell whether anything was recorded.
type testHistory struct {
	rag.History
	mu         sync.Mutex
	failAppend bool
}

func (h *testHistory) AppendExchange(ctx context.Context, sid string, q, a rag.Message) error {
	h.mu.Lock()
	fail := h.failAppend
	h.mu.Unlock()
	if fail {
		return errors.New("disk I/O error: secret path /var/db")
	}
	return h.History.AppendExchange(ctx, sid, q, a)
}

// testChunks lists a fixed set of chunks.
type testChunks struct{ chunks []rag.Chunk }

func (c testChunks) ListChunks(ctx context.Context, f rag.ChunkFilter) ([]rag.Chunk, error) {
	var out []rag.Chunk
	for _, ch := range c.chunks {
		if ch.ModuleID == f.ModuleID && (f.ChapterID == "" || ch.ChapterID == f.ChapterID) {
			out = append(out, ch)
		}
	}
	return out, nil
}

var longText = strings.Repeat("é", 150) + strings.Repeat("x", 100)

var chunkSet = testChunks{chunks: []rag.Chunk{
	{ID: "a", Text: longText, ModuleID: "module-1", ChapterID: "chapter-1", SectionHeading: "Intro", ChunkIndex: 0},
	{ID: "b", Text: "short", ModuleID: "module-1", ChapterID: "chapter-2", SectionHeading: "More", ChunkIndex: 1},
	{ID: "r", Text: "root text", ModuleID: "", ChapterID: "preface", SectionHeading: "Preface", ChunkIndex: 0},
}}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// syncBuffer collects log output from concurrent handlers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

type testEnv struct {
	srv     *Server
	h       http.Handler
	history *testHistory
	clock   *fakeClock
	logs    *syncBuffer

	mu  sync.Mutex
	ids []string // every id the server generated
}

// messages returns how many messages session id holds (0 when unknown).
func (e *testEnv) messages(t *testing.T, id string) int {
	t.Helper()
	msgs, err := e.history.Messages(context.Background(), id)
	if rag.ErrorCode(err) == rag.ENOTFOUND {
		return 0
	}
	if err != nil {
		t.Fatalf("messages of %s: %v", id, err)
	}
	return len(msgs)
}

// recorded counts the messages of every session the tests could have
// written: the generated ids and the fixed sid.
func (e *testEnv) recorded(t *testing.T) int {
	t.Helper()
	e.mu.Lock()
	ids := append([]string{sid}, e.ids...)
	e.mu.Unlock()
	n := 0
	for _, id := range ids {
		n += e.messages(t, id)
	}
	return n
}

// newEnv builds a server with the test tutor, an in-memory history, the
// fixed chunks and a fake clock. cfg starts from DefaultConfig with rate
// limits off; edit may change it before the server is built.
func newEnv(t testing.TB, edit func(*Config), setup ...func(*Server)) *testEnv {
	t.Helper()
	cfg := DefaultConfig()
	cfg.ChatRatePerMin, cfg.ChunksRatePerMin = 0, 0
	if edit != nil {
		edit(&cfg)
	}
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	env := &testEnv{
		history: &testHistory{History: db},
		clock:   &fakeClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)},
		logs:    &syncBuffer{},
	}
	s := NewServer(cfg)
	s.Tutor = testTutor{}
	s.History = env.history
	s.Chunks = chunkSet
	s.Now = env.clock.Now
	s.NewID = func() string {
		id := uuid.NewString()
		env.mu.Lock()
		env.ids = append(env.ids, id)
		env.mu.Unlock()
		return id
	}
	s.Logger = slog.New(slog.NewJSONHandler(env.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for _, f := range setup {
		f(s)
	}
	env.srv = s
	env.h = s.Handler()
	return env
}

type reqOpt func(*http.Request)

func header(k, v string) reqOpt { return func(r *http.Request) { r.Header.Set(k, v) } }
func remote(addr string) reqOpt { return func(r *http.Request) { r.RemoteAddr = addr } }

func (e *testEnv) do(method, target, body string, opts ...reqOpt) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, target, rd)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for _, o := range opts {
		o(r)
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

func decode[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("decode %q: %v", w.Body.String(), err)
	}
	return v
}

func jsonBody(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type sseEvent struct {
	Name string
	Data string
}

func parseSSE(t *testing.T, body string) []sseEvent {
	t.Helper()
	var events []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Name != "" || cur.Data != "" {
				events = append(events, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.Data += strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if cur.Name != "" {
		t.Fatalf("unterminated event %+v", cur)
	}
	return events
}

func eventNames(evs []sseEvent) string {
	names := make([]string, len(evs))
	for i, e := range evs {
		names[i] = e.Name
	}
	return strings.Join(names, ",")
}
