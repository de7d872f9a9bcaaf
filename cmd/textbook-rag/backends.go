package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/datadir"
	"github.com/textbook-rag/rag/dense"
	rhttp "github.com/textbook-rag/rag/http"
	"github.com/textbook-rag/rag/openai"
	"github.com/textbook-rag/rag/qdrant"
)

// openRetriever builds the configured retriever: the book's lexical
// index, or an OpenAI-compatible embedder over Qdrant (or the embedded
// flat store), the embedder counted by the metrics.
func (m *Main) openRetriever(ctx context.Context) (rag.Retriever, error) {
	cfg := m.Config
	switch cfg.Embedder {
	case "":
		if cfg.QdrantURL != "" {
			return nil, usageError{"QDRANT_URL needs an embedder: set --embedder local or openai"}
		}
		return m.Lexical, nil
	case "local":
		emb, err := m.localEmbedder(ctx)
		if err != nil {
			return nil, err
		}
		return m.openDense(ctx, emb, emb.ID())
	case "openai":
		emb := openai.NewEmbedder(openai.Config{
			BaseURL:   cfg.OpenAIBaseURL,
			APIKey:    cfg.OpenAIAPIKey,
			Model:     cfg.EmbeddingModel,
			Dimension: cfg.EmbeddingDim,
			Timeout:   cfg.EmbedTimeout,
		})
		return m.openDense(ctx, emb, cfg.EmbeddingModel)
	default:
		return nil, usageError{fmt.Sprintf("unknown embedder %q (want \"\", \"local\" or \"openai\")", cfg.Embedder)}
	}
}

// openLLM builds the configured language model, counted by the metrics,
// or nil for the extractive answerer.
func (m *Main) openLLM() (rag.Generator, error) {
	cfg := m.Config
	switch cfg.Generator {
	case "", "extractive":
		return nil, nil
	case "openai":
		return m.countGenerator(openai.NewGenerator(openai.Config{
			BaseURL:   cfg.OpenAIBaseURL,
			APIKey:    cfg.OpenAIAPIKey,
			Model:     cfg.LLMModel,
			Timeout:   cfg.LLMTimeout,
			MaxTokens: cfg.LLMMaxTokens,
		})), nil
	default:
		return nil, usageError{fmt.Sprintf("unknown generator %q (want extractive or openai)", cfg.Generator)}
	}
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

// openDense is the dense retriever of emb (model names it in the stamp
// and the log) over Qdrant or the flat store, the book's chunks embedded
// when the stamp says they changed.
func (m *Main) openDense(ctx context.Context, emb rag.Embedder, model string) (rag.Retriever, error) {
	store, where, err := m.openVectorStore(ctx, emb.Dimension())
	if err != nil {
		return nil, err
	}
	stamp := embedStamp{BookHash: m.Index.Book.Hash, Chunker: chunkOptions(), Model: model, Dim: emb.Dimension(), Store: where}
	if !stampCurrent(m.Dir, stamp) {
		m.Logger.Info("embedding the book", "chunks", len(m.Index.Chunks), "model", model, "store", where)
		if err := dense.Index(ctx, emb, store, m.Index.Chunks, 64, nil); err != nil {
			return nil, fmt.Errorf("index embeddings: %w", err)
		}
		if err := writeStamp(m.Dir, stamp); err != nil {
			return nil, err
		}
	}
	var counted rag.Embedder = emb
	if m.Metrics != nil {
		counted = m.Metrics.CountEmbedder(emb)
	}
	return &dense.Retriever{Embedder: counted, Store: store}, nil
}

// openVectorStore opens Qdrant when configured, else the flat store in the
// data dir, and says which for the stamp.
func (m *Main) openVectorStore(ctx context.Context, dim int) (rag.VectorStore, string, error) {
	cfg := m.Config
	if cfg.QdrantURL != "" {
		qs, err := openQdrant(ctx, cfg, dim)
		if err != nil {
			return nil, "", err
		}
		m.closers = append(m.closers, qs.Close)
		m.checks = append(m.checks, rhttp.Check{Name: "qdrant_connected", Ping: qs.Ping})
		return qs, "qdrant " + cfg.QdrantURL + " " + cfg.QdrantCollection, nil
	}
	fs, err := dense.OpenFlat(filepath.Join(m.Dir, "vectors.json"), dim)
	if err != nil {
		return nil, "", err
	}
	return fs, "flat", nil
}

func stampCurrent(dir string, want embedStamp) bool {
	b, err := datadir.ReadFile(filepath.Join(dir, stampFile), datadir.MaxSmallFileBytes)
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
