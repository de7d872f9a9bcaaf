package main

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/google/uuid"
	"github.com/textbook-rag/rag"
)

// TestLive runs one answer and one refusal against real services when
// OPENAI_API_KEY (and optionally QDRANT_URL) are set. These machines cannot
// reach them, so here it skips.
func TestLive(t *testing.T) {
	key := os.Getenv("OPENAI_API_KEY")
	if key == "" {
		t.Skip("OPENAI_API_KEY not set: skipping the live OpenAI/Qdrant test")
	}
	cfg := DefaultConfig()
	cfg.Data = t.TempDir()
	cfg.RefusalLog = os.DevNull
	cfg.Embedder, cfg.Generator = "openai", "openai"
	cfg.OpenAIAPIKey = key
	if u := os.Getenv("OPENAI_BASE_URL"); u != "" {
		cfg.OpenAIBaseURL = u
	}
	cfg.QdrantURL, cfg.QdrantAPIKey = os.Getenv("QDRANT_URL"), os.Getenv("QDRANT_API_KEY")
	cfg.QdrantCollection = "textbook_rag_live_test"
	// text-embedding-3-small scores run lower than the spec's model's.
	cfg.Tutor.EmptyThreshold, cfg.Tutor.ConfidentThreshold = 0.25, 0.4
	app := NewMain(cfg, io.Discard)
	if err := app.Open(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	for _, tt := range []struct {
		q      string
		refuse bool
	}{{"How does a LiDAR measure distance?", false}, {"What is a good recipe for banana bread?", true}} {
		resp, err := app.Tutor.Ask(context.Background(), rag.ChatRequest{Question: tt.q, SessionID: uuid.NewString()}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.WasRefusal != tt.refuse {
			t.Errorf("%q: refusal=%v, answer %q", tt.q, resp.WasRefusal, resp.Answer)
		}
	}
}
