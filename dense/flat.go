package dense

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/textbook-rag/rag"
)

var _ rag.VectorStore = (*FlatStore)(nil)

// FlatStore is an exact cosine store: every search compares the question
// with every chunk, which is fast enough for a textbook (a few thousand
// chunks). It lives in one file, replaced atomically.
type FlatStore struct {
	path string
	dim  int

	mu      sync.RWMutex
	chunks  []rag.Chunk
	vectors [][]float32 // unit length
}

type flatFile struct {
	Dim     int         `json:"dim"`
	Chunks  []rag.Chunk `json:"chunks"`
	Vectors [][]float32 `json:"vectors"`
}

// OpenFlat opens (or starts) the store at path for vectors of dim. A file
// of another dimension is treated as no file: empty until Replace.
func OpenFlat(path string, dim int) (*FlatStore, error) {
	s := &FlatStore{path: path, dim: dim}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open vector store: %w", err)
	}
	var f flatFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("open vector store %s: %w", path, err)
	}
	if f.Dim != dim {
		// The vectors are another model's. They are only a cache of the
		// book: the caller's stamp (which records the dimension) sees the
		// change and embeds the book again, and Replace writes the file.
		return s, nil
	}
	s.chunks, s.vectors = f.Chunks, f.Vectors
	return s, nil
}

// Len is how many chunks the store holds.
func (s *FlatStore) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.chunks)
}

// Replace makes the store hold exactly these chunks and writes the file.
func (s *FlatStore) Replace(ctx context.Context, chunks []rag.Chunk, vectors [][]float32) error {
	if len(chunks) != len(vectors) {
		return fmt.Errorf("replace: %d chunks, %d vectors", len(chunks), len(vectors))
	}
	norm := make([][]float32, len(vectors))
	for i, v := range vectors {
		if len(v) != s.dim {
			return fmt.Errorf("replace: vector %d has %d dims, want %d", i, len(v), s.dim)
		}
		norm[i] = unit(v)
	}
	b, err := json.Marshal(flatFile{Dim: s.dim, Chunks: chunks, Vectors: norm})
	if err != nil {
		return fmt.Errorf("replace: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return fmt.Errorf("replace: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), filepath.Base(s.path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("replace: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("replace: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("replace: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("replace: %w", err)
	}
	s.mu.Lock()
	s.chunks, s.vectors = chunks, norm
	s.mu.Unlock()
	return nil
}

// Search returns the k most similar chunks; scores are cosines clamped
// to [0, 1].
func (s *FlatStore) Search(ctx context.Context, vector []float32, k int) ([]rag.ScoredChunk, error) {
	if len(vector) != s.dim {
		return nil, fmt.Errorf("search: vector has %d dims, want %d", len(vector), s.dim)
	}
	q := unit(vector)
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]rag.ScoredChunk, len(s.chunks))
	for i, v := range s.vectors {
		var dot float64
		for j := range v {
			dot += float64(v[j]) * float64(q[j])
		}
		out[i] = rag.ScoredChunk{Chunk: s.chunks[i], Score: math.Max(0, math.Min(1, dot))}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}
