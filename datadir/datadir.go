// Package datadir keeps an ingested book in a data directory: the chunks
// and what ingest learned about the book, in one JSON file that is
// replaced atomically (written aside, then renamed), so a reader of the
// directory sees the old index or the new one, never half of either.
package datadir

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/textbook-rag/rag"
)

// FileName is the index file inside a data directory.
const FileName = "index.json"

// formatVersion changes when the file's layout or the chunker's output
// changes, so an index written by an older binary is rebuilt.
const formatVersion = 1

// Index is an ingested book.
type Index struct {
	Version int         `json:"version"`
	Book    rag.Book    `json:"book"`
	Chunks  []rag.Chunk `json:"chunks"`
	// Options fingerprints the chunking options the index was built with.
	Options string `json:"options"`
}

var _ rag.ChunkLister = (*Index)(nil)

// ErrNoIndex is returned by Load when the directory holds no index yet.
var ErrNoIndex = errors.New("no index in data directory")

// Load reads the index of a data directory.
func Load(dir string) (*Index, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load %s: %w", dir, ErrNoIndex)
	}
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", dir, err)
	}
	var ix Index
	if err := json.Unmarshal(b, &ix); err != nil {
		return nil, fmt.Errorf("load %s: corrupt index: %w", dir, err)
	}
	if ix.Version != formatVersion {
		return nil, fmt.Errorf("load %s: index format %d, want %d: %w", dir, ix.Version, formatVersion, ErrNoIndex)
	}
	return &ix, nil
}

// Current reports whether the directory already holds this book's index
// built with these options.
func Current(dir string, book rag.Book, options string) bool {
	ix, err := Load(dir)
	return err == nil && ix.Book.Hash == book.Hash && ix.Options == options
}

// Save writes the index unless the directory already holds the same book
// built the same way; it reports whether it wrote. A ctx done before the
// new index replaces the old one (SIGTERM during ingest) leaves the old.
func Save(ctx context.Context, dir string, book rag.Book, chunks []rag.Chunk, options string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("save index: %w", err)
	}
	removeStale(dir, StaleAge)
	if Current(dir, book, options) {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("save index: %w", err)
	}
	b, err := json.Marshal(Index{Version: formatVersion, Book: book, Chunks: chunks, Options: options})
	if err != nil {
		return false, fmt.Errorf("save index: %w", err)
	}
	tmp, err := os.CreateTemp(dir, FileName+".*.tmp")
	if err != nil {
		return false, fmt.Errorf("save index: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return false, fmt.Errorf("save index: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return false, fmt.Errorf("save index: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("save index: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("save index: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, FileName)); err != nil {
		return false, fmt.Errorf("save index: %w", err)
	}
	return true, nil
}

// StaleAge is how old a temp file of the index must be to be removed: a
// writer killed mid-write (kill -9, power loss) leaves one behind, while a
// live writer finishes in seconds.
const StaleAge = 10 * time.Minute

// removeStale removes the index temp files older than age, left by
// writers that died; it is best effort, a file it cannot remove stays.
func removeStale(dir string, age time.Duration) {
	paths, err := filepath.Glob(filepath.Join(dir, FileName+".*.tmp"))
	if err != nil {
		return
	}
	for _, p := range paths {
		if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() && time.Since(info.ModTime()) > age {
			os.Remove(p)
		}
	}
}

// ListChunks returns the chunks of a module (and chapter), in book order.
func (ix *Index) ListChunks(ctx context.Context, f rag.ChunkFilter) ([]rag.Chunk, error) {
	out := []rag.Chunk{}
	for _, c := range ix.Chunks {
		if c.ModuleID == f.ModuleID && (f.ChapterID == "" || c.ChapterID == f.ChapterID) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Chunk finds a chunk by id.
func (ix *Index) Chunk(id string) (rag.Chunk, bool) {
	for _, c := range ix.Chunks {
		if c.ID == id {
			return c, true
		}
	}
	return rag.Chunk{}, false
}
