package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/textbook-rag/rag"
)

// llmReply is how the scripted language model answers one call.
type llmReply struct {
	status     int    // an HTTP error status instead of a reply
	retryAfter string // its Retry-After header
	text       string
	finish     string // "" sends no finish reason
	noDone     bool   // end the stream without [DONE]
}

// scriptedOpenAI is an OpenAI-compatible server whose embeddings are
// fakeOpenAI's bags of words and whose chat replies follow a script, one
// reply per call (the last one repeats). It counts the chat calls.
type scriptedOpenAI struct {
	mu     sync.Mutex
	script []llmReply
	calls  atomic.Int64
	// maxTokens is the last chat call's max_tokens (-1: none sent).
	maxTokens atomic.Int64
}

func (s *scriptedOpenAI) set(script ...llmReply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = script
	s.calls.Store(0)
}

func (s *scriptedOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		(&fakeOpenAI{}).ServeHTTP(w, r)
		return
	}
	var body struct {
		Stream    bool   `json:"stream"`
		MaxTokens *int64 `json:"max_tokens"`
	}
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &body)
	if body.MaxTokens != nil {
		s.maxTokens.Store(*body.MaxTokens)
	} else {
		s.maxTokens.Store(-1)
	}
	n := int(s.calls.Add(1))
	s.mu.Lock()
	rep := s.script[min(n, len(s.script))-1]
	s.mu.Unlock()
	if rep.status != 0 {
		if rep.retryAfter != "" {
			w.Header().Set("Retry-After", rep.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		fmt.Fprint(w, `{"error":{"message":"scripted failure","type":"server_error"}}`)
		return
	}
	if !body.Stream {
		w.Header().Set("Content-Type", "application/json")
		msg, _ := json.Marshal(rep.text)
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":%q,"message":{"role":"assistant","content":%s}}]}`, rep.finish, msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta, finish string) {
		d, _ := json.Marshal(map[string]string{"content": delta})
		f := "null"
		if finish != "" {
			f = fmt.Sprintf("%q", finish)
		}
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", d, f)
		w.(http.Flusher).Flush()
	}
	for i := 0; i < len(rep.text); i += 9 {
		chunk(rep.text[i:min(i+9, len(rep.text))], "")
	}
	if rep.finish != "" {
		chunk("", rep.finish)
	}
	if !rep.noDone {
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

// streamed is what an SSE client of /api/chat/stream ends up with.
type streamed struct {
	events []string
	text   string // deltas appended, replace swapping the text
	done   rag.ChatResponse
	error  string
}

func readStream(t *testing.T, body io.Reader) streamed {
	t.Helper()
	var s streamed
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			event = e
			s.events = append(s.events, e)
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var d struct{ Text string }
		switch event {
		case "delta":
			json.Unmarshal([]byte(data), &d)
			s.text += d.Text
		case "replace":
			json.Unmarshal([]byte(data), &d)
			s.text = d.Text
		case "done":
			json.Unmarshal([]byte(data), &s.done)
		case "error":
			s.error = data
		}
	}
	return s
}

// TestLanguageModelMisbehaviour drives every way the language model can
// go wrong through both chat endpoints of the real wiring, against an
// OpenAI-compatible server, and checks that the reader's text, the done
// answer and the history record are one text, that nothing is a 500, and
// that no refusal of the spec's gates called the model.
func TestLanguageModelMisbehaviour(t *testing.T) {
	const good = "A topic is a named channel. Nodes publish messages on it."
	api := &scriptedOpenAI{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	setup := func(fallback bool) string {
		base, _ := startService(t, func(c *Config) {
			c.Embedder, c.Generator = "openai", "openai"
			c.OpenAIBaseURL, c.OpenAIAPIKey = srv.URL+"/v1", "test-key"
			c.EmbeddingDim = fakeDim
			c.Tutor.EmptyThreshold, c.Tutor.ConfidentThreshold = 0.3, 0.45
			c.Tutor.FallbackOnGeneratorError = fallback
		})
		return base
	}
	withFallback, withoutFallback := setup(true), setup(false)

	const topic = "What are the four sources of the reality gap?"
	cases := []struct {
		name     string
		base     string
		question string
		script   []llmReply
		// want: "llm" (the model's text), "fallback" (the book's
		// passages), a refusal reason, or "openai_error".
		want  string
		calls int64
	}{
		{"clean answer", withFallback, topic, []llmReply{{text: good, finish: "stop"}}, "llm", 1},
		{"outside knowledge in sentence 2", withFallback, topic, []llmReply{{text: "A topic is a named channel. Typically, robots use many topics.", finish: "stop"}}, "fallback", 1},
		{"marker", withFallback, topic, []llmReply{{text: "NOT_IN_CONTEXT", finish: "stop"}}, string(rag.InsufficientContext), 1},
		{"trailing marker", withFallback, topic, []llmReply{{text: good + "\nNOT_IN_CONTEXT", finish: "stop"}}, "fallback", 1},
		{"cut stream", withFallback, topic, []llmReply{{text: "A topic is a named channel. In this chapter you learned that robo", noDone: true}}, "fallback", 1},
		{"finished without [DONE]", withFallback, topic, []llmReply{{text: good, finish: "stop", noDone: true}}, "fallback", 1},
		{"finish reason length", withFallback, topic, []llmReply{{text: "A topic is a named channel. Nodes", finish: "length"}}, "fallback", 1},
		{"empty text", withFallback, topic, []llmReply{{text: "", finish: "stop"}}, "fallback", 1},
		{"NUL in text", withFallback, topic, []llmReply{{text: "A topic is a named\x00 channel.", finish: "stop"}}, "fallback", 1},
		{"control character", withFallback, topic, []llmReply{{text: "A topic is a named channel. \x1b[2JCleared.", finish: "stop"}}, "fallback", 1},
		{"client error", withFallback, topic, []llmReply{{status: 400}}, "fallback", 1},
		{"rate limited, then answered", withFallback, topic, []llmReply{{status: 429, retryAfter: "1"}, {text: good, finish: "stop"}}, "llm", 2},
		{"cut stream, no fallback", withoutFallback, topic, []llmReply{{text: "A topic is a named channel. You", noDone: true}}, rag.EOPENAI, 1},
		{"empty text, no fallback", withoutFallback, topic, []llmReply{{text: "", finish: "stop"}}, rag.EOPENAI, 1},
		{"off-domain question", withFallback, "What is a good recipe for banana bread?", []llmReply{{text: good, finish: "stop"}}, "refusal", 0},
		{"out-of-scope question", withFallback, "How do I do PID tuning for a robot arm joint?", []llmReply{{text: good, finish: "stop"}}, string(rag.OutOfScope), 0},
	}
	// Without streaming the reply is one JSON object: no [DONE] to miss.
	plainWant := map[string]string{"finished without [DONE]": "llm"}
	// Streamed, these release a first good sentence before going wrong:
	// the stream must withdraw it.
	replaced := map[string]bool{"outside knowledge in sentence 2": true, "trailing marker": true, "cut stream": true, "finish reason length": true, "control character": true, "finished without [DONE]": true}
	for _, tc := range cases {
		for _, path := range []string{"/api/chat", "/api/chat/stream"} {
			t.Run(tc.name+path, func(t *testing.T) {
				want := tc.want
				if w, ok := plainWant[tc.name]; ok && path == "/api/chat" {
					want = w
				}
				api.set(tc.script...)
				session := uuid.NewString()
				resp, err := http.Post(tc.base+path, "application/json", bytes.NewReader([]byte(fmt.Sprintf(`{"question":%q,"session_id":%q}`, tc.question, session))))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				if resp.StatusCode == 500 {
					b, _ := io.ReadAll(resp.Body)
					t.Fatalf("500: %s", b)
				}
				var reader string
				var done rag.ChatResponse
				var got streamed
				if path == "/api/chat" {
					b, _ := io.ReadAll(resp.Body)
					if want == rag.EOPENAI {
						if resp.StatusCode != 502 || !strings.Contains(string(b), `"error":"openai_error"`) {
							t.Fatalf("%d %s, want 502 openai_error", resp.StatusCode, b)
						}
						checkCalls(t, api, tc.calls)
						if h := historyOf(t, tc.base, session); len(h) != 0 {
							t.Errorf("a failed answer was recorded: %+v", h)
						}
						return
					}
					done = decodeChat(t, b)
					reader = done.Answer
				} else {
					got = readStream(t, resp.Body)
					if want == rag.EOPENAI {
						if resp.StatusCode != 502 && !strings.Contains(got.error, `"error":"openai_error"`) {
							t.Fatalf("%d %+v, want openai_error", resp.StatusCode, got)
						}
						if got.done.Answer != "" {
							t.Fatalf("a failed answer was done: %+v", got.done)
						}
						checkCalls(t, api, tc.calls)
						if h := historyOf(t, tc.base, session); len(h) != 0 {
							t.Errorf("a failed answer was recorded: %+v", h)
						}
						return
					}
					done, reader = got.done, got.text
					if len(got.events) == 0 || got.events[len(got.events)-1] != "done" {
						t.Fatalf("events %v, want done last", got.events)
					}
					if reader == "" {
						reader = done.Answer // a refusal decided before any text is done alone
					}
					if replaced[tc.name] != slices.Contains(got.events, "replace") {
						t.Errorf("events %v; want a replace event: %v", got.events, replaced[tc.name])
					}
				}
				if reader != done.Answer {
					t.Errorf("the reader saw %q, done says %q (events %v)", reader, done.Answer, got.events)
				}
				switch want {
				case "llm":
					if done.WasRefusal || done.Answer != good {
						t.Errorf("answer %q, want the model's %q", done.Answer, good)
					}
				case "fallback":
					if done.WasRefusal || !strings.HasPrefix(done.Answer, "From “") {
						t.Errorf("answer %q, want the extractive fallback", done.Answer)
					}
				case "refusal":
					if !done.WasRefusal {
						t.Errorf("answer %q, want a refusal", done.Answer)
					}
				default:
					if !done.WasRefusal || string(*done.RefusalReason) != want {
						t.Errorf("response %+v, want refusal %s", done, want)
					}
				}
				if strings.Contains(done.Answer, rag.NotInContext) || strings.ContainsRune(done.Answer, 0) {
					t.Errorf("the answer carries the model's garbage: %q", done.Answer)
				}
				checkCalls(t, api, tc.calls)
				hist := historyOf(t, tc.base, done.SessionID)
				if len(hist) != 2 || hist[1].Content != done.Answer || hist[1].WasRefusal != done.WasRefusal {
					t.Errorf("history %+v, want the answer %q", hist, done.Answer)
				}
			})
		}
	}
}

func checkCalls(t *testing.T, api *scriptedOpenAI, want int64) {
	t.Helper()
	if got := api.calls.Load(); got != want {
		t.Errorf("%d LLM calls, want %d", got, want)
	}
}

func historyOf(t *testing.T, base, session string) []rag.Message {
	t.Helper()
	r, err := http.Get(base + "/api/chat/sessions/" + session + "/messages")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var h struct {
		Messages []rag.Message `json:"messages"`
	}
	json.NewDecoder(r.Body).Decode(&h)
	return h.Messages
}

// An answer's length is bounded: every chat call sends max_tokens
// (--llm-max-tokens, default 1024), and an answer the bound cut
// (finish_reason "length") is unfinished, so the extractive fallback
// stands, streamed or not.
func TestLLMMaxTokens(t *testing.T) {
	api := &scriptedOpenAI{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	for _, tc := range []struct {
		name string
		args []string
		want int64
	}{
		{"default", nil, 1024},
		{"flag", []string{"--llm-max-tokens", "7"}, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, _ := startService(t, func(c *Config) {
				f := newFlags("serve", c, io.Discard)
				f.answering()
				if err := f.parse(tc.args); err != nil {
					t.Fatal(err)
				}
				c.Embedder, c.Generator = "openai", "openai"
				c.OpenAIBaseURL, c.OpenAIAPIKey = srv.URL+"/v1", "test-key"
				c.EmbeddingDim = fakeDim
				c.Tutor.EmptyThreshold, c.Tutor.ConfidentThreshold = 0.3, 0.45
				c.Tutor.FallbackOnGeneratorError = true
			})
			for _, path := range []string{"/api/chat", "/api/chat/stream"} {
				api.set(llmReply{text: "A topic is a named channel. Nodes publish messages on", finish: "length"})
				resp, data := postJSON(t, base+path, map[string]string{"question": "What are the four sources of the reality gap?"})
				if resp.StatusCode != 200 {
					t.Fatalf("%s: status %d: %s", path, resp.StatusCode, data)
				}
				done := rag.ChatResponse{}
				if path == "/api/chat" {
					done = decodeChat(t, data)
				} else {
					done = readStream(t, bytes.NewReader(data)).done
				}
				if done.WasRefusal || !strings.HasPrefix(done.Answer, "From “") {
					t.Errorf("%s: answer %q, want the extractive fallback", path, done.Answer)
				}
				if got := api.maxTokens.Load(); got != tc.want {
					t.Errorf("%s: max_tokens %d, want %d", path, got, tc.want)
				}
			}
		})
	}
	for _, bad := range []string{"0", "-5", "many"} {
		cfg := DefaultConfig()
		f := newFlags("serve", &cfg, io.Discard)
		f.answering()
		if err := f.parse([]string{"--llm-max-tokens", bad}); err == nil {
			t.Errorf("--llm-max-tokens %s was accepted", bad)
		}
	}
}

// A provider that ignores max_tokens and sends a 4 MB answer: the tutor
// reads no more of it than --llm-max-tokens allows (see
// openai.AnswerBytesPerToken) and answers with the extractive fallback, as
// for an answer cut at max_tokens, streamed or not; the history holds the
// fallback, not the 4 MB.
func TestLLMIgnoresMaxTokens(t *testing.T) {
	api := &scriptedOpenAI{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	base, _ := startService(t, func(c *Config) {
		c.Embedder, c.Generator = "openai", "openai"
		c.OpenAIBaseURL, c.OpenAIAPIKey = srv.URL+"/v1", "test-key"
		c.EmbeddingDim = fakeDim
		c.Tutor.EmptyThreshold, c.Tutor.ConfidentThreshold = 0.3, 0.45
		c.Tutor.FallbackOnGeneratorError = true
	})
	huge := strings.Repeat("A topic is a named channel. ", 4<<20/28)
	for _, path := range []string{"/api/chat", "/api/chat/stream"} {
		api.set(llmReply{text: huge, finish: "stop"})
		session := uuid.NewString()
		resp, data := postJSON(t, base+path, map[string]string{"question": "What are the four sources of the reality gap?", "session_id": session})
		if resp.StatusCode != 200 {
			t.Fatalf("%s: status %d: %.300s", path, resp.StatusCode, data)
		}
		var done rag.ChatResponse
		if path == "/api/chat" {
			done = decodeChat(t, data)
		} else {
			done = readStream(t, bytes.NewReader(data)).done
		}
		if len(data) > 64<<10 || done.WasRefusal || !strings.HasPrefix(done.Answer, "From “") {
			t.Errorf("%s: %d bytes sent, answer %.100q; want the extractive fallback", path, len(data), done.Answer)
		}
		msgs := historyOf(t, base, session)
		if len(msgs) != 2 || msgs[1].Content != done.Answer {
			t.Errorf("%s: history holds %d messages, the answer %d bytes; want the fallback", path, len(msgs), len(msgs[len(msgs)-1].Content))
		}
	}
}
