// Package dense retrieves with embeddings: an Embedder turns the question
// into a vector and a VectorStore finds the nearest chunks. It also holds
// FlatStore, an exact store kept in one file of the data directory, for
// using an embeddings API without Qdrant.
package dense

import (
	"context"
	"fmt"

	"github.com/textbook-rag/rag"
)

var _ rag.Retriever = (*Retriever)(nil)

// Retriever embeds the question once and searches the store.
type Retriever struct {
	Embedder rag.Embedder
	Store    rag.VectorStore
}

// Retrieve returns the k nearest chunks with their cosine scores.
func (r *Retriever) Retrieve(ctx context.Context, question string, k int) ([]rag.ScoredChunk, error) {
	if q, ok := r.Embedder.(rag.QueryEmbedder); ok {
		v, err := q.Query(ctx, question)
		if err != nil {
			return nil, fmt.Errorf("embed question: %w", err)
		}
		return r.Store.Search(ctx, v, k)
	}
	vecs, err := r.Embedder.Embed(ctx, []string{question})
	if err != nil {
		return nil, fmt.Errorf("embed question: %w", err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embed question: got %d vectors", len(vecs))
	}
	return r.Store.Search(ctx, vecs[0], k)
}

// Index embeds every chunk (in batches) and makes the store hold exactly
// these chunks. progress, when set, hears after each batch.
func Index(ctx context.Context, emb rag.Embedder, store rag.VectorStore, chunks []rag.Chunk, batch int, progress func(done, total int)) error {
	if batch <= 0 {
		batch = 64
	}
	vectors := make([][]float32, 0, len(chunks))
	for start := 0; start < len(chunks); start += batch {
		end := min(start+batch, len(chunks))
		texts := make([]string, 0, end-start)
		for _, c := range chunks[start:end] {
			texts = append(texts, c.Text)
		}
		vs, err := emb.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embed chunks %d-%d: %w", start, end, err)
		}
		if len(vs) != len(texts) {
			return fmt.Errorf("embed chunks %d-%d: got %d vectors", start, end, len(vs))
		}
		vectors = append(vectors, vs...)
		if progress != nil {
			progress(end, len(chunks))
		}
	}
	if err := store.Replace(ctx, chunks, vectors); err != nil {
		return fmt.Errorf("store vectors: %w", err)
	}
	return nil
}
