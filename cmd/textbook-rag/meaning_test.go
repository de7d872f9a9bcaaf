package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

// sentenceModelDir is TEXTBOOK_RAG_MODEL as the test process found it
// (TestMain takes it out of the environment).
var sentenceModelDir string

// TestSentenceModelOnTheSampleBook opens the sample book with the pinned
// sentence model: the book's headings are embedded once into the book's
// folder, a second start embeds nothing, and the tutor still answers and
// refuses as the spec says.
func TestSentenceModelOnTheSampleBook(t *testing.T) {
	if sentenceModelDir == "" {
		t.Skip("TEXTBOOK_RAG_MODEL not set: skipping the sentence model's tests (export TEXTBOOK_RAG_MODEL=$(scripts/model))")
	}
	data := t.TempDir()
	open := func() *Main {
		cfg := DefaultConfig()
		cfg.Data, cfg.SentenceModel = data, sentenceModelDir
		var stderr strings.Builder
		app := NewMain(cfg, &stderr)
		if err := app.Open(context.Background(), true); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { app.Close() })
		if strings.Contains(stderr.String(), "warning") {
			t.Errorf("start warned: %s", stderr.String())
		}
		return app
	}
	first := open()
	if first.Meaning == nil || first.Meaning.Embedded() == 0 {
		t.Fatal("the first start embedded nothing")
	}
	if _, err := os.Stat(filepath.Join(first.Dir, "vectors")); err != nil {
		t.Errorf("no vectors kept in the book's folder: %v", err)
	}
	second := open()
	if n := second.Meaning.Embedded(); n != 0 {
		t.Errorf("a second start embedded %d texts, want none", n)
	}
	for _, c := range []struct {
		q      string
		refuse bool
	}{
		{"What is a ROS 2 topic?", false},
		{"What is a good recipe for banana bread?", true},
	} {
		req := rag.ChatRequest{Question: c.q, SessionID: "00000000-0000-4000-8000-000000000001"}
		if err := req.Normalize(); err != nil {
			t.Fatal(err)
		}
		resp, err := second.Tutor.Ask(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.WasRefusal != c.refuse {
			t.Errorf("%q: refused = %v (%q), want %v", c.q, resp.WasRefusal, resp.Answer, c.refuse)
		}
	}
}
