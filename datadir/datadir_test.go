package datadir

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/textbook-rag/rag"
)

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("Load(empty) = %v, want ErrNoIndex", err)
	}
	book := rag.Book{Title: "B", Hash: "h1", Modules: []rag.Module{{ID: "m", Title: "M"}}}
	chunks := []rag.Chunk{
		{ID: "1", ModuleID: "m", ChapterID: "a", Text: "one"},
		{ID: "2", ModuleID: "m", ChapterID: "b", Text: "two"},
		{ID: "3", ModuleID: "", ChapterID: "intro", Text: "three"},
	}
	wrote, err := Save(t.Context(), dir, book, chunks, "opts")
	if err != nil || !wrote {
		t.Fatalf("Save = %v, %v; want a write", wrote, err)
	}
	info1, _ := os.Stat(filepath.Join(dir, FileName))

	wrote, err = Save(t.Context(), dir, book, chunks, "opts")
	if err != nil || wrote {
		t.Fatalf("Save of an unchanged book = %v, %v; want no write", wrote, err)
	}
	info2, _ := os.Stat(filepath.Join(dir, FileName))
	if !info1.ModTime().Equal(info2.ModTime()) {
		t.Error("an unchanged book rewrote the index")
	}

	book.Hash = "h2"
	if wrote, err = Save(t.Context(), dir, book, chunks[:1], "opts"); err != nil || !wrote {
		t.Fatalf("Save of a changed book = %v, %v; want a write", wrote, err)
	}
	ix, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Book.Hash != "h2" || len(ix.Chunks) != 1 {
		t.Fatalf("loaded %q with %d chunks, want h2 with 1", ix.Book.Hash, len(ix.Chunks))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("data dir holds %d entries, want only %s (no temp files left)", len(entries), FileName)
	}
}

func TestListChunks(t *testing.T) {
	ix := &Index{Chunks: []rag.Chunk{
		{ID: "1", ModuleID: "m", ChapterID: "a"},
		{ID: "2", ModuleID: "m", ChapterID: "b"},
		{ID: "3", ModuleID: "", ChapterID: "intro"},
	}}
	tests := []struct {
		name string
		f    rag.ChunkFilter
		want []string
	}{
		{"module", rag.ChunkFilter{ModuleID: "m"}, []string{"1", "2"}},
		{"chapter", rag.ChunkFilter{ModuleID: "m", ChapterID: "b"}, []string{"2"}},
		{"book root", rag.ChunkFilter{ModuleID: ""}, []string{"3"}},
		{"unknown", rag.ChunkFilter{ModuleID: "x"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ix.ListChunks(context.Background(), tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d chunks, want %v", len(got), tt.want)
			}
			for i, c := range got {
				if c.ID != tt.want[i] {
					t.Errorf("chunk %d = %s, want %s", i, c.ID, tt.want[i])
				}
			}
		})
	}
}

func TestCorruptIndex(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil {
		t.Fatal("Load of a corrupt index succeeded")
	}
}

// A writer killed during the index write leaves its temp file; the next
// Save removes those old enough to belong to no live writer and keeps a
// fresh one (another writer may be writing it now).
func TestSaveRemovesStaleTempFiles(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, FileName+".123.tmp")
	fresh := filepath.Join(dir, FileName+".456.tmp")
	other := filepath.Join(dir, "notes.tmp")
	for _, p := range []string{stale, fresh, other} {
		if err := os.WriteFile(p, []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{stale, other} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	book := rag.Book{Title: "B", Hash: "h1"}
	for range 2 { // the second Save writes nothing and still cleans up
		if _, err := Save(t.Context(), dir, book, nil, "opts"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("stale temp file: %v, want removed", err)
		}
		for _, p := range []string{fresh, other} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: %v, want kept", filepath.Base(p), err)
			}
		}
		if err := os.WriteFile(stale, []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(stale, old, old); err != nil {
			t.Fatal(err)
		}
	}
}
