package openai

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	sdk "github.com/openai/openai-go"

	"github.com/textbook-rag/rag"
)

var _ rag.Embedder = (*Embedder)(nil)

// Embedder turns texts into vectors with an embeddings API.
type Embedder struct{ api }

// NewEmbedder returns an embedder; the model defaults to
// text-embedding-3-small (1536 dimensions).
func NewEmbedder(cfg Config) *Embedder {
	e := &Embedder{}
	e.init(cfg, "text-embedding-3-small")
	return e
}

// ID names the API, the model and the dimension (a hash of them, so it
// can name a file): vectors kept under it are this embedder's.
func (e *Embedder) ID() string {
	sum := sha256.Sum256([]byte(e.cfg.BaseURL + "\x00" + e.cfg.Model + "\x00" + strconv.Itoa(e.cfg.Dimension)))
	return "openai-" + hex.EncodeToString(sum[:])
}

// Dimension is the configured vector size.
func (e *Embedder) Dimension() int { return e.cfg.Dimension }

// embedError is a failed embedding call as the API reports it to clients.
func embedError(message string, err error) error {
	return &rag.Error{Code: rag.EOPENAI, Message: message, Err: err}
}

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
			return nil, embedError("The embedding service failed.", fmt.Errorf("embed %d texts: %w", len(batch), err))
		}
		if len(res.Data) != len(batch) {
			return nil, embedError("The embedding service failed.", fmt.Errorf("embed %d texts: got %d vectors", len(batch), len(res.Data)))
		}
		vecs := make([][]float32, len(batch))
		for _, d := range res.Data {
			if d.Index < 0 || int(d.Index) >= len(batch) {
				return nil, embedError("The embedding service failed.", fmt.Errorf("embedding index %d out of range", d.Index))
			}
			if len(d.Embedding) != e.cfg.Dimension {
				return nil, embedError("The embedding service returned vectors of an unexpected size.",
					fmt.Errorf("model %s gives %d dimensions, configured %d", e.cfg.Model, len(d.Embedding), e.cfg.Dimension))
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
