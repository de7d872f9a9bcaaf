package http

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

// bookRetriever returns fixed chunks, best first, whatever the question;
// it records how many chunks each search asked for.
type bookRetriever struct {
	chunks []rag.ScoredChunk
	asked  []int
}

func (r *bookRetriever) Retrieve(ctx context.Context, q string, k int) ([]rag.ScoredChunk, error) {
	r.asked = append(r.asked, k)
	return r.chunks[:min(k, len(r.chunks))], nil
}

func scored(id, chapter, page, heading, anchor string, score float64) rag.ScoredChunk {
	return rag.ScoredChunk{Chunk: rag.Chunk{ID: id, ChapterPath: chapter, PagePath: page, SectionHeading: heading, Anchor: anchor,
		ChapterTitle: "Chapter " + chapter, ModuleTitle: "Module 2: ROS 2"}, Score: score}
}

func searchBook() *bookRetriever {
	return &bookRetriever{chunks: []rag.ScoredChunk{
		scored("c1", "module-2/01-topics", "module-2/topics", "Quality of Service", "qos", 0.66),
		scored("c2", "module-2/01-topics", "module-2/topics", "Quality of Service", "qos", 0.64),
		scored("c3", "module-2/02-services", "module-2/services", "Services", "services", 0.58),
		scored("c4", "intro", "", "Welcome", "", 0.52),
		scored("c5", "module-3/gazebo", "module-3/gazebo", "Worlds", "worlds", 0.31),
	}}
}

func TestSearch(t *testing.T) {
	book := searchBook()
	env := newEnv(t, nil, func(s *Server) { s.Search = rag.SectionSearch{Retriever: book, Floor: 0.5} })
	w := env.do("GET", "/api/search?q="+url.QueryEscape("  How deep is the QoS history?  "), "")
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	got := decode[searchOut](t, w)
	want := []sectionOut{
		{Title: "Quality of Service", Chapter: "Chapter module-2/01-topics", Module: "Module 2: ROS 2", Path: "module-2/topics", Anchor: "qos", Link: "/docs/module-2/topics#qos", Score: 0.66},
		{Title: "Services", Chapter: "Chapter module-2/02-services", Module: "Module 2: ROS 2", Path: "module-2/services", Anchor: "services", Link: "/docs/module-2/services#services", Score: 0.58},
		{Title: "Welcome", Chapter: "Chapter intro", Module: "Module 2: ROS 2", Path: "", Anchor: "", Link: "/docs/", Score: 0.52},
	}
	if got.Query != "How deep is the QoS history?" || len(got.Results) != len(want) {
		t.Fatalf("search gave %+v, want the query trimmed and %d sections (each once, none below the floor)", got, len(want))
	}
	for i := range want {
		if got.Results[i] != want[i] {
			t.Errorf("result %d: %+v, want %+v", i, got.Results[i], want[i])
		}
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q", ct)
	}

	w = env.do("GET", "/api/search?q=qos&limit=1", "")
	if got := decode[searchOut](t, w); w.Code != 200 || len(got.Results) != 1 || got.Results[0].Anchor != "qos" {
		t.Errorf("limit=1 gave %d %+v", w.Code, got)
	}

	for _, tc := range []struct {
		name, query, field string
	}{
		{"no q", "", "q"},
		{"blank q", "q=%20%20", "q"},
		{"q too long", "q=" + strings.Repeat("a", rag.MaxQuestionChars+1), "q"},
		{"q with a control character", "q=a%00b", "q"},
		{"q not UTF-8", "q=%ff", "q"},
		{"limit zero", "q=qos&limit=0", "limit"},
		{"limit too large", "q=qos&limit=11", "limit"},
		{"limit not a number", "q=qos&limit=five", "limit"},
		{"confident not a boolean", "q=qos&confident=maybe", "confident"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := env.do("GET", "/api/search?"+tc.query, "")
			e := decode[ErrorBody](t, w)
			if w.Code != 400 || e.Error != rag.EINVALID || e.Message == "" || e.Details["field"] != tc.field {
				t.Errorf("status %d %+v, want 400 validation_error naming %s", w.Code, e, tc.field)
			}
		})
	}

	w = env.do("POST", "/api/search?q=qos", `{}`)
	if e := decode[ErrorBody](t, w); w.Code != 405 || e.Error != EMETHOD || w.Header().Get("Allow") != "GET, HEAD, OPTIONS" {
		t.Errorf("POST: %d %+v Allow %q", w.Code, e, w.Header().Get("Allow"))
	}
	// Every search reads the same forty chunks: a bounded depth, and a
	// smaller limit gives the first sections of a larger one.
	env.do("GET", "/api/search?q=qos&limit=10", "")
	if want := []int{40, 40, 40}; !slices.Equal(book.asked, want) {
		t.Errorf("the searches asked the retriever for %v chunks, want %v", book.asked, want)
	}
}

// After a refusal the widget asks for the sections the retriever is
// confident about only: where the book's evidence is thin, none.
func TestSearchConfidentOnly(t *testing.T) {
	book := searchBook()
	env := newEnv(t, nil, func(s *Server) {
		s.Search = rag.SectionSearch{Retriever: book, Floor: 0.5}
		s.ConfidentScore = 0.6
	})
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"q=qos&confident=1", []string{"qos"}},
		{"q=qos&confident=true&limit=1", []string{"qos"}},
		{"q=qos&confident=0", []string{"qos", "services", ""}},
	} {
		w := env.do("GET", "/api/search?"+tc.query, "")
		got := decode[searchOut](t, w)
		var anchors []string
		for _, r := range got.Results {
			anchors = append(anchors, r.Anchor)
		}
		if w.Code != 200 || !slices.Equal(anchors, tc.want) {
			t.Errorf("%s: %d %q, want %q", tc.query, w.Code, anchors, tc.want)
		}
	}
	strict := newEnv(t, nil, func(s *Server) {
		s.Search = rag.SectionSearch{Retriever: book, Floor: 0.5}
		s.ConfidentScore = 0.7
	})
	if got := decode[searchOut](t, strict.do("GET", "/api/search?q=qos&confident=1", "")); len(got.Results) != 0 {
		t.Errorf("nothing at the confident score: %+v, want no sections", got.Results)
	}
}

func TestSearchUnavailable(t *testing.T) {
	env := newEnv(t, nil)
	w := env.do("GET", "/api/search?q=qos", "")
	if e := decode[ErrorBody](t, w); w.Code != 503 || e.Error != rag.EUNAVAILABLE {
		t.Errorf("without a searcher: %d %+v", w.Code, e)
	}
}

// A search takes from a budget of its own at the chat rate: looking up
// sections after a refusal never costs the reader a question.
func TestSearchRateLimit(t *testing.T) {
	env := newEnv(t, func(c *Config) { c.ChatRatePerMin = 2 }, func(s *Server) { s.Search = rag.SectionSearch{Retriever: searchBook(), Floor: 0.5} })
	for i, want := range []int{200, 200, 429} {
		w := env.do("GET", "/api/search?q=qos", "", remote("192.0.2.1:1"))
		if w.Code != want {
			t.Fatalf("search %d: status %d, want %d", i+1, w.Code, want)
		}
		if want == 429 {
			e := decode[ErrorBody](t, w)
			if e.Error != rag.ERATELIMITED || w.Header().Get("Retry-After") != "30" {
				t.Errorf("limited search: %+v Retry-After %q", e, w.Header().Get("Retry-After"))
			}
		}
	}
	if w := env.do("POST", "/api/chat", `{"question":"hi"}`, remote("192.0.2.1:1")); w.Code != 200 {
		t.Errorf("a chat after the searches: %d, want 200 (its own budget)", w.Code)
	}
}

// A site on an allowed origin reads the results, as it reads answers.
func TestSearchCORS(t *testing.T) {
	env := newEnv(t, func(c *Config) { c.AllowedOrigins = []string{"https://course.example.edu"} },
		func(s *Server) { s.Search = rag.SectionSearch{Retriever: searchBook(), Floor: 0.5} })
	w := env.do("GET", "/api/search?q=qos", "", header("Origin", "https://course.example.edu"))
	if w.Code != 200 || w.Header().Get("Access-Control-Allow-Origin") != "https://course.example.edu" {
		t.Errorf("allowed origin: %d, Access-Control-Allow-Origin %q", w.Code, w.Header().Get("Access-Control-Allow-Origin"))
	}
}
