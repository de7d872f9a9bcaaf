package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/textbook-rag/rag"
)

// oneChunk is the smallest book an index holds.
var oneChunk = []rag.Chunk{{ID: "c1", ModuleID: "m", ChapterID: "a", Text: "Some text."}}

// An index with no chunks is refused, whatever its sum says: Save does not
// write one and Load does not serve one (its sum recomputed after the
// chunks were emptied, it reads as any other index would).
func TestEmptyIndexRefused(t *testing.T) {
	dir := t.TempDir()
	book := rag.Book{Title: "B", Hash: "h"}
	o := SaveOptions{Options: "opts", Source: "/b"}
	if wrote, err := Save(t.Context(), dir, book, nil, o); !errors.Is(err, ErrEmpty) || wrote {
		t.Fatalf("Save of no chunks = %v, %v; want ErrEmpty", wrote, err)
	}
	b, err := encode(book, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); !errors.Is(err, ErrEmpty) || !Unusable(err) {
		t.Fatalf("Load of an index with no chunks = %v, want ErrEmpty", err)
	}
	if wrote, err := Save(t.Context(), dir, book, oneChunk, o); err != nil || !wrote {
		t.Fatalf("Save over an empty index = %v, %v; want a write", wrote, err)
	}
	if ix, err := Load(dir); err != nil || len(ix.Chunks) != 1 {
		t.Fatalf("Load after the rebuild: %v", err)
	}
}

// ReadFile reads a regular file up to its cap and nothing else: a file over
// the cap (sparse here, so the test writes nothing) and a folder in its
// place are refused with errors that say so.
func TestReadFileCaps(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, 5); err != nil || string(b) != "12345" {
		t.Fatalf("ReadFile at the cap = %q, %v", b, err)
	}
	if _, err := ReadFile(p, 4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadFile over the cap = %v, want ErrTooLarge", err)
	}
	big := filepath.Join(dir, FileName)
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxIndexBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Load(dir); !errors.Is(err, ErrTooLarge) || !Unusable(err) {
		t.Fatalf("Load of an index over the cap = %v, want ErrTooLarge", err)
	}
	if _, err := ReadFile(dir, 100); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("ReadFile of a folder = %v, want ErrNotRegular", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), 100); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadFile of no file = %v, want ErrNotExist", err)
	}
}
