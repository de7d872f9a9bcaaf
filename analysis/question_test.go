package analysis_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
	"github.com/textbook-rag/rag/answer"
	"github.com/textbook-rag/rag/extractive"
	"github.com/textbook-rag/rag/lexical"
	"github.com/textbook-rag/rag/markdown"
	"github.com/textbook-rag/rag/sample"
	"github.com/textbook-rag/rag/tutor"
)

// TestQuestionTokenizedOnce: the tutor reads a question once (see
// analysis.Question) and hands that reading to the retriever and the
// answerer, so one ask tokenizes the question's text once, whichever
// way the flow goes. Parts are counted too: the term of a "what is X"
// question and the words the empty-retrieval refusal names are read from
// the question's own tokens. (Only Focus reads a leading step clause or
// story, lower-cased, in its two halves, once, within Read.)
func TestQuestionTokenizedOnce(t *testing.T) {
	_, chunks, err := markdown.Load(t.Context(), sample.Docs(), markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	book := analysis.NewBook(chunks)
	tu := &tutor.Tutor{
		Config:     tutor.DefaultConfig(),
		Retriever:  lexical.New(book),
		Evidence:   answer.New(book),
		Scope:      tutor.DefaultScope(),
		Extractive: extractive.Generator{},
	}
	tests := []struct {
		name, question, selected string
		answered                 bool
	}{
		{"answered", "How does a LiDAR measure distance?", "", true},
		{"definition", "What is a ROS 2 topic?", "", true},
		{"quantity", "How far does a robot moving at 2 m/s travel between two scans of a 10 Hz LiDAR?", "", true},
		{"selection", "Why does the stamp matter here?", "The stamp is when the data was captured, so subscribers can measure the latency.", false},
		// The empty-retrieval refusal names the question's topic (Topic).
		{"off the book", "How long should I bake banana bread?", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The answerer splits a chunk's text the first time a question
			// reads it (and a chunk's bold term may be a piece of the
			// question): that is the book's reading, done before counting.
			warm := rag.ChatRequest{Question: tt.question, SelectedText: tt.selected, SessionID: "s"}
			if _, err := tu.Ask(context.Background(), warm, nil); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			whole, parts := 0, 0
			analysis.SetTokenized(func(text string) {
				mu.Lock()
				defer mu.Unlock()
				switch {
				case text == tt.question:
					whole++
				case strings.TrimSpace(text) != "" && strings.Contains(tt.question, text) && !strings.Contains(tt.selected, text):
					parts++
				}
			})
			defer analysis.SetTokenized(nil)
			req := rag.ChatRequest{Question: tt.question, SelectedText: tt.selected, SessionID: "s"}
			resp, err := tu.Ask(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if answered := !resp.WasRefusal; answered != tt.answered {
				t.Fatalf("answered = %v, want %v (%q)", answered, tt.answered, resp.Answer)
			}
			if whole != 1 || parts != 0 {
				t.Errorf("the question was tokenized %d times whole and %d in parts, want once whole", whole, parts)
			}
		})
	}
}
