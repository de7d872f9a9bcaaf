// Package datadir keeps ingested books in a data directory, each in a
// folder of its own (see BookDir): the chunks and what ingest learned
// about the book, in one JSON file that is replaced atomically (written
// aside, then renamed), so a reader of the folder sees the old index or
// the new one, never half of either. Books on one data directory live side
// by side; no book's index replaces another's.
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
// changes, so an index written by an older binary is rebuilt. 2: the
// index holds its sum.
const formatVersion = 2

// Index is an ingested book.
type Index struct {
	Version int         `json:"version"`
	Book    rag.Book    `json:"book"`
	Chunks  []rag.Chunk `json:"chunks"`
	// Options fingerprints the chunking options the index was built with.
	Options string `json:"options"`
	// Source names the book the index was built from (SaveOptions.Source).
	Source string `json:"source,omitempty"`
	// Course is the course's name as the book gives it (SaveOptions.Course).
	Course string `json:"course,omitempty"`
	// Input fingerprints what the index was built from (SaveOptions.Input).
	Input string `json:"input,omitempty"`
	// Warnings are what reading the book warned about (SaveOptions.Warnings).
	Warnings []string `json:"warnings,omitempty"`
}

var _ rag.ChunkLister = (*Index)(nil)

// ErrNoIndex is returned by Load when the directory holds no index yet.
var ErrNoIndex = errors.New("no index in data directory")

// ErrEmpty is Load's error for an index that holds no chunks, and Save's
// for a book that gives none: there is nothing to answer from.
var ErrEmpty = errors.New("the index holds no chunks (the book's pages have no text under their headings)")

// Unusable reports a Load error for an index that is there but not to be
// served (damaged, edited, emptied, a link or too large): it is rebuilt
// from the book, with a warning.
func Unusable(err error) bool {
	return errors.Is(err, ErrCorrupt) || errors.Is(err, ErrEmpty) || errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTooLarge)
}

// Load reads the index of a data directory: a regular file of at most
// MaxIndexBytes (see ReadFile), holding at least one chunk.
func Load(dir string) (*Index, error) {
	b, err := ReadFile(filepath.Join(dir, FileName), MaxIndexBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load %s: %w", dir, ErrNoIndex)
	}
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", dir, err)
	}
	var st stored
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("load %s: corrupt index: %w", dir, err)
	}
	if st.Version != formatVersion {
		return nil, fmt.Errorf("load %s: index format %d, want %d: %w", dir, st.Version, formatVersion, ErrNoIndex)
	}
	if st.Sum != st.sum() {
		return nil, fmt.Errorf("load %s: %w", dir, ErrCorrupt)
	}
	ix := Index{Version: st.Version, Options: st.Options, Source: st.Source, Course: st.Course, Input: st.Input, Warnings: st.Warnings}
	if err := json.Unmarshal(st.Book, &ix.Book); err != nil {
		return nil, fmt.Errorf("load %s: corrupt index: book: %w", dir, err)
	}
	if err := json.Unmarshal(st.Chunks, &ix.Chunks); err != nil {
		return nil, fmt.Errorf("load %s: corrupt index: chunks: %w", dir, err)
	}
	if len(ix.Chunks) == 0 {
		return nil, fmt.Errorf("load %s: %w", dir, ErrEmpty)
	}
	return &ix, nil
}

// Current reports whether the folder already holds this book's index as
// o describes it.
func Current(dir string, book rag.Book, o SaveOptions) bool {
	ix, err := Load(dir)
	return err == nil && ix.current(book, o)
}

func (ix *Index) current(book rag.Book, o SaveOptions) bool {
	return ix.Book.Hash == book.Hash && ix.Options == o.Options && ix.Course == o.Course && ix.Input == o.Input
}

// Built reports whether the index was built by the same program from the
// same read of the book as o describes (same Input, Options, Source and
// Course): then it is what parsing that read again would give, and a
// command can serve it as it is.
func (ix *Index) Built(o SaveOptions) bool {
	return o.Input != "" && ix.Input == o.Input && ix.Options == o.Options && ix.Source == o.Source && ix.Course == o.Course
}

// SampleSource is the Source of the book built into the binary.
const SampleSource = "builtin:sample"

// SaveOptions say how an index was built.
type SaveOptions struct {
	// Options fingerprints the chunking options.
	Options string
	// Source names the book: its folder's absolute path, or SampleSource.
	Source string
	// Course is the course's name as the book gives it; a change of it
	// rewrites the index, as a change of the book does.
	Course string
	// Input fingerprints the files the index is built from and the
	// program that built it (see Index.Built); a change of it rewrites the
	// index.
	Input string
	// Warnings are what reading the book warned about (pages left out,
	// a table of contents that names no page): kept with the index, so
	// that each start that serves it repeats them, not only the one that
	// built it.
	Warnings []string
	// Wait is how long Save waits for another writer's lock before it
	// fails with *BusyError: replicas of one book starting together each
	// wait for the first, then find its index current.
	Wait time.Duration
}

// OtherBookError is Save's refusal to replace the index of another book:
// a folder holds one book (see Locate), so this only guards against a
// folder given by hand.
type OtherBookError struct {
	Dir, Have, Want string
}

func (e *OtherBookError) Error() string {
	return fmt.Sprintf("%s holds the index of another book (%s), not of %s", e.Dir, e.Have, e.Want)
}

// BusyError is the error of a writer that finds the data directory locked.
type BusyError struct {
	Dir string
	PID int // 0 when unknown
}

func (e *BusyError) Error() string {
	if e.PID <= 0 {
		return fmt.Sprintf("data directory %s is in use by another textbook-rag process: it is writing the index", e.Dir)
	}
	return fmt.Sprintf("data directory %s is in use by another textbook-rag process (pid %d): it is writing the index", e.Dir, e.PID)
}

// Save writes the index into the book's folder dir (see Locate) unless
// it already holds the same book built the same way; it reports whether
// it wrote. A current index is left as it is, lock file included: a
// command that finds its book's index current writes nothing. Writers
// hold the folder's lock while they check and replace the index, so two
// processes never overwrite each other's; readers take no lock. A ctx
// done before the new index replaces the old one (SIGTERM during ingest)
// leaves the old.
func Save(ctx context.Context, dir string, book rag.Book, chunks []rag.Chunk, o SaveOptions) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("save index: %w", err)
	}
	if len(chunks) == 0 {
		return false, fmt.Errorf("save index: %w", ErrEmpty)
	}
	cleanTemp(dir)
	if Current(dir, book, o) {
		return false, nil
	}
	lock, err := lockWithin(ctx, dir, o.Wait)
	if err != nil {
		return false, err
	}
	defer lock.Unlock()
	if old, err := Load(dir); err == nil {
		if old.current(book, o) {
			return false, nil // another writer wrote it meanwhile
		}
		if old.Source != "" && old.Source != o.Source {
			return false, &OtherBookError{Dir: dir, Have: old.Source, Want: o.Source}
		}
	}
	b, err := encode(book, chunks, o)
	if err != nil {
		return false, fmt.Errorf("save index: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
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

// lockWithin takes the write lock, waiting up to wait for another writer.
func lockWithin(ctx context.Context, dir string, wait time.Duration) (*Lock, error) {
	deadline := time.Now().Add(wait)
	for {
		lock, err := TryLock(dir)
		var busy *BusyError
		if !errors.As(err, &busy) || time.Now().After(deadline) {
			return lock, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("save index: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// StaleAge is how old a temp file of the index must be to be removed: a
// writer killed mid-write (kill -9, power loss) leaves one behind, while a
// live writer finishes in seconds.
const StaleAge = 10 * time.Minute

// cleanTemp removes the temp files writers killed mid-write left behind.
// Writers create them only under the lock, so when the lock is free every
// one is stale; when another process holds it, only the old ones are.
// Without temp files it takes no lock: taking it writes the lock file.
func cleanTemp(dir string) {
	removeStaleDerived(dir)
	if paths, _ := filepath.Glob(filepath.Join(dir, FileName+".*.tmp")); len(paths) == 0 {
		return
	}
	lock, err := TryLock(dir)
	if err != nil || !locking {
		removeStale(dir, StaleAge)
		return
	}
	removeStale(dir, 0)
	lock.Unlock()
}

// removeStale removes the index temp files older than age, left by
// writers that died; it is best effort, a file it cannot remove stays.
func removeStale(dir string, age time.Duration) {
	paths, err := filepath.Glob(filepath.Join(dir, FileName+".*.tmp"))
	if err != nil {
		return
	}
	for _, p := range paths {
		if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() && time.Since(info.ModTime()) >= age {
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
