package openai

import (
	"context"
	"fmt"
	"sync/atomic"

	sdk "github.com/openai/openai-go"

	"github.com/textbook-rag/rag"
)

var _ rag.Embedder = (*Embedder)(nil)

// Embedder turns texts into vectors with an embeddings API.
type Embedder struct {
	cfg    Config
	client sdk.Client
	calls  atomic.Int64
}

// NewEmbedder returns an embedder; the model defaults to
// text-embedding-3-small (1536 dimensions).
func NewEmbedder(cfg Config) *Embedder {
	cfg = cfg.withDefaults("text-embedding-3-small")
	return &Embedder{cfg: cfg, client: newClient(cfg)}
}

// Dimension is the configured vector size.
func (e *Embedder) Dimension() int { return e.cfg.Dimension }

// Calls counts the HTTP requests made, retries included.
func (e *Embedder) Calls() int64 { return e.calls.Load() }

// Embed embeds texts in batches, in order.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.cfg.BatchSize {
		batch := texts[start:min(start+e.cfg.BatchSize, len(texts))]
		var res *sdk.CreateEmbeddingResponse
		err := withRetry(ctx, e.cfg, func() error {
			e.calls.Add(1)
			var err error
			res, err = e.client.Embeddings.New(ctx, sdk.EmbeddingNewParams{
				Model: sdk.EmbeddingModel(e.cfg.Model),
				Input: sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: batch},
			})
			return err
		})
		if err != nil {
			return nil, &rag.Error{Code: rag.EOPENAI, Message: "The embedding service failed.", Err: fmt.Errorf("embed %d texts: %w", len(batch), err)}
		}
		if len(res.Data) != len(batch) {
			return nil, &rag.Error{Code: rag.EOPENAI, Message: "The embedding service failed.", Err: fmt.Errorf("embed %d texts: got %d vectors", len(batch), len(res.Data))}
		}
		vecs := make([][]float32, len(batch))
		for _, d := range res.Data {
			if d.Index < 0 || int(d.Index) >= len(batch) {
				return nil, &rag.Error{Code: rag.EOPENAI, Message: "The embedding service failed.", Err: fmt.Errorf("embedding index %d out of range", d.Index)}
			}
			if len(d.Embedding) != e.cfg.Dimension {
				return nil, &rag.Error{Code: rag.EOPENAI, Message: "The embedding service returned vectors of an unexpected size.",
					Err: fmt.Errorf("model %s gives %d dimensions, configured %d", e.cfg.Model, len(d.Embedding), e.cfg.Dimension)}
			}
			v := make([]float32, len(d.Embedding))
			for i, x := range d.Embedding {
				v[i] = float32(x)
			}
			vecs[d.Index] = v
		}
		out = append(out, vecs...)
	}
	return out, nil
}
