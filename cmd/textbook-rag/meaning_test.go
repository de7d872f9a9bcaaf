package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/qdrant/qdranttest"
)

// sentenceModelDir is TEXTBOOK_RAG_MODEL as the test process found it
// (TestMain takes it out of the environment).
var sentenceModelDir string

// TestSentenceModelOnTheSampleBook opens the sample book with the pinned
// sentence model: the sample's vectors ship with the binary, so its
// first start embeds nothing; a book of the user's is embedded once into
// the book's folder and a second start embeds nothing; the tutor still
// answers and refuses as the spec says.
func TestSentenceModelOnTheSampleBook(t *testing.T) {
	if sentenceModelDir == "" {
		t.Skip("TEXTBOOK_RAG_MODEL not set: skipping the sentence model's tests (export TEXTBOOK_RAG_MODEL=$(scripts/model))")
	}
	data := t.TempDir()
	open := func(docs string) *Main {
		cfg := DefaultConfig()
		cfg.Data, cfg.Docs, cfg.SentenceModel = data, docs, sentenceModelDir
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
	if n := open("").Meaning.Embedded(); n != 0 {
		t.Errorf("the sample's first start embedded %d texts; its shipped vectors are stale (run scripts/sample-vectors)", n)
	}
	first := open("../../sample/docs")
	if first.Meaning == nil || first.Meaning.Embedded() == 0 {
		t.Fatal("the first start on a book folder embedded nothing")
	}
	if _, err := os.Stat(filepath.Join(first.Dir, "vectors")); err != nil {
		t.Errorf("no vectors kept in the book's folder: %v", err)
	}
	second := open("../../sample/docs")
	if n := second.Meaning.Embedded(); n != 0 {
		t.Errorf("a second start embedded %d texts, want none", n)
	}
	askSample(t, second)
}

// TestSentenceModelRetrieves is the sentence model as the dense
// retriever's embedder (--embedder local), over the flat store and over
// Qdrant (in process), with no key: the sample's questions are still
// answered and refused, and a question is not kept in the vector file.
func TestSentenceModelRetrieves(t *testing.T) {
	if sentenceModelDir == "" {
		t.Skip("TEXTBOOK_RAG_MODEL not set: skipping the sentence model's tests (export TEXTBOOK_RAG_MODEL=$(scripts/model))")
	}
	for _, store := range []string{"flat", "qdrant"} {
		t.Run(store, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Data, cfg.SentenceModel, cfg.Embedder = t.TempDir(), sentenceModelDir, "local"
			// The sentence model's cosines run low: the thresholds
			// `calibrate --embedder local` recommends on the sample.
			cfg.Tutor.EmptyThreshold, cfg.Tutor.ConfidentThreshold = 0.4, 0.5
			if store == "qdrant" {
				fq, url := qdranttest.Start(t)
				cfg.QdrantURL = url
				defer func() {
					if len(fq.Points) == 0 {
						t.Error("the book was not indexed into Qdrant")
					}
				}()
			}
			app := NewMain(cfg, io.Discard)
			if err := app.Open(context.Background(), true); err != nil {
				t.Fatal(err)
			}
			defer app.Close()
			askSample(t, app)
		})
	}
}

// askSample asks the sample book a question it answers and one it must
// refuse.
func askSample(t *testing.T, app *Main) {
	t.Helper()
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
		resp, err := app.Tutor.Ask(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.WasRefusal != c.refuse {
			t.Errorf("%q: refused = %v (%q), want %v", c.q, resp.WasRefusal, resp.Answer, c.refuse)
		}
	}
}
