package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/dense"
	rhttp "github.com/textbook-rag/rag/http"
	"github.com/textbook-rag/rag/openai"
	"github.com/textbook-rag/rag/qdrant"
)

// openBackends swaps in the production retriever and generator when they
// are configured: an OpenAI-compatible embedder over Qdrant (or the
// embedded flat store), and an OpenAI-compatible LLM. The refusal flow and
// the evidence check stay exactly as they are.
func (a *App) openBackends(ctx context.Context) error {
	cfg := a.Config
	switch cfg.Embedder {
	case "":
		if cfg.QdrantURL != "" {
			return usageError{"QDRANT_URL needs an embedder: set --embedder openai"}
		}
	case "openai":
		if err := a.openDense(ctx); err != nil {
			return err
		}
	default:
		return usageError{fmt.Sprintf("unknown embedder %q (want \"\" or \"openai\")", cfg.Embedder)}
	}
	switch cfg.Generator {
	case "", "extractive":
	case "openai":
		a.Tutor.LLM = openai.NewGenerator(openai.Config{
			BaseURL: cfg.OpenAIBaseURL,
			APIKey:  cfg.OpenAIAPIKey,
			Model:   cfg.LLMModel,
			Timeout: cfg.LLMTimeout,
		})
	default:
		return usageError{fmt.Sprintf("unknown generator %q (want extractive or openai)", cfg.Generator)}
	}
	return nil
}

// embedStamp records what the stored vectors were made from; a change of
// any of it means embedding the book again.
type embedStamp struct {
	BookHash string `json:"book_hash"`
	Chunker  string `json:"chunker"`
	Model    string `json:"model"`
	Dim      int    `json:"dim"`
	Store    string `json:"store"`
}

const stampFile = "embeddings.json"

func (a *App) openDense(ctx context.Context) error {
	cfg := a.Config
	emb := openai.NewEmbedder(openai.Config{
		BaseURL:   cfg.OpenAIBaseURL,
		APIKey:    cfg.OpenAIAPIKey,
		Model:     cfg.EmbeddingModel,
		Dimension: cfg.EmbeddingDim,
		Timeout:   cfg.EmbedTimeout,
	})
	store, where, err := a.openVectorStore(ctx, emb.Dimension())
	if err != nil {
		return err
	}
	stamp := embedStamp{BookHash: a.Index.Book.Hash, Chunker: chunkOptions(), Model: cfg.EmbeddingModel, Dim: emb.Dimension(), Store: where}
	if !stampCurrent(cfg.Data, stamp) {
		a.Logger.Info("embedding the book", "chunks", len(a.Index.Chunks), "model", cfg.EmbeddingModel, "store", where)
		if err := dense.Index(ctx, emb, store, a.Index.Chunks, 64, nil); err != nil {
			return fmt.Errorf("index embeddings: %w", err)
		}
		if err := writeStamp(cfg.Data, stamp); err != nil {
			return err
		}
	}
	r := &dense.Retriever{Embedder: emb, Store: store}
	a.Tutor.Retriever = r
	a.embedder = emb
	a.countEmbedder = func(wrap func(rag.Embedder) rag.Embedder) { r.Embedder = wrap(emb) }
	return nil
}

// openVectorStore opens Qdrant when configured, else the flat store in the
// data dir, and says which for the stamp.
func (a *App) openVectorStore(ctx context.Context, dim int) (rag.VectorStore, string, error) {
	cfg := a.Config
	if cfg.QdrantURL != "" {
		qs, err := openQdrant(ctx, cfg, dim)
		if err != nil {
			return nil, "", err
		}
		a.closers = append(a.closers, qs.Close)
		a.checks = append(a.checks, rhttp.Check{Name: "qdrant_connected", Ping: qs.Ping})
		return qs, "qdrant " + cfg.QdrantURL + " " + cfg.QdrantCollection, nil
	}
	fs, err := dense.OpenFlat(filepath.Join(cfg.Data, "vectors.json"), dim)
	if err != nil {
		return nil, "", err
	}
	return fs, "flat", nil
}

func stampCurrent(dir string, want embedStamp) bool {
	b, err := os.ReadFile(filepath.Join(dir, stampFile))
	if err != nil {
		return false
	}
	var got embedStamp
	return json.Unmarshal(b, &got) == nil && got == want
}

func writeStamp(dir string, s embedStamp) error {
	b, _ := json.Marshal(s)
	if err := os.WriteFile(filepath.Join(dir, stampFile), b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", stampFile, err)
	}
	return nil
}

func openQdrant(ctx context.Context, cfg Config, dim int) (*qdrant.VectorStore, error) {
	return qdrant.Open(ctx, qdrant.Config{URL: cfg.QdrantURL, APIKey: cfg.QdrantAPIKey, Collection: cfg.QdrantCollection, SearchTimeout: cfg.QdrantTimeout}, dim)
}
