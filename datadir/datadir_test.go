package datadir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	wrote, err := Save(t.Context(), dir, book, chunks, SaveOptions{Options: "opts"})
	if err != nil || !wrote {
		t.Fatalf("Save = %v, %v; want a write", wrote, err)
	}
	info1, _ := os.Stat(filepath.Join(dir, FileName))

	wrote, err = Save(t.Context(), dir, book, chunks, SaveOptions{Options: "opts"})
	if err != nil || wrote {
		t.Fatalf("Save of an unchanged book = %v, %v; want no write", wrote, err)
	}
	info2, _ := os.Stat(filepath.Join(dir, FileName))
	if !info1.ModTime().Equal(info2.ModTime()) {
		t.Error("an unchanged book rewrote the index")
	}

	book.Hash = "h2"
	if wrote, err = Save(t.Context(), dir, book, chunks[:1], SaveOptions{Options: "opts"}); err != nil || !wrote {
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
	for _, e := range entries {
		if e.Name() != FileName && e.Name() != LockName {
			t.Errorf("data dir holds %s, want only %s and %s (no temp files left)", e.Name(), FileName, LockName)
		}
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
// Save removes it. While another process holds the lock (it may be writing
// its temp file now) only those old enough to belong to no live writer go.
func TestSaveRemovesStaleTempFiles(t *testing.T) {
	dir := t.TempDir()
	book := rag.Book{Title: "B", Hash: "h1"}
	if _, err := Save(t.Context(), dir, book, oneChunk, SaveOptions{Options: "opts"}); err != nil {
		t.Fatal(err)
	}
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
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}
	writer, err := TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if wrote, err := Save(t.Context(), dir, book, oneChunk, SaveOptions{Options: "opts"}); err != nil || wrote {
		t.Fatalf("Save of the current book = %v, %v", wrote, err)
	}
	if exists(stale) || !exists(fresh) || !exists(other) {
		t.Errorf("with the lock held: stale %v, fresh %v, other %v; want only the stale temp file removed", exists(stale), exists(fresh), exists(other))
	}
	writer.Unlock()
	if _, err := Save(t.Context(), dir, book, oneChunk, SaveOptions{Options: "opts"}); err != nil {
		t.Fatal(err)
	}
	if exists(fresh) || !exists(other) {
		t.Errorf("with the lock free: fresh %v, other %v; want every index temp file removed, nothing else", exists(fresh), exists(other))
	}
}

// A second writer on a locked data directory fails at once with a message
// naming the holder, and writes nothing; it succeeds once the lock is
// released. flock locks belong to an open file, so two opens in one
// process conflict as two processes do.
func TestLockExcludesSecondWriter(t *testing.T) {
	dir := t.TempDir()
	first, err := TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = TryLock(dir)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.PID != os.Getpid() {
		t.Fatalf("second TryLock = %v, want a BusyError naming pid %d", err, os.Getpid())
	}
	want := fmt.Sprintf("data directory %s is in use by another textbook-rag process (pid %d)", dir, os.Getpid())
	if !strings.Contains(err.Error(), want) {
		t.Errorf("message %q, want it to say %q", err, want)
	}
	book := rag.Book{Title: "B", Hash: "h1"}
	if _, err := Save(t.Context(), dir, book, oneChunk, SaveOptions{Options: "opts", Source: "/b"}); !errors.As(err, &busy) {
		t.Errorf("Save on a locked dir = %v, want a BusyError", err)
	}
	if _, err := Load(dir); !errors.Is(err, ErrNoIndex) {
		t.Errorf("index after a refused Save: %v, want none", err)
	}
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	if wrote, err := Save(t.Context(), dir, book, oneChunk, SaveOptions{Options: "opts", Source: "/b"}); err != nil || !wrote {
		t.Errorf("Save after Unlock = %v, %v; want a write", wrote, err)
	}
}

// A folder holds one book's index: Save never replaces another book's
// (each book has its own folder, see Locate).
func TestSaveAnotherBook(t *testing.T) {
	a, b := rag.Book{Title: "A", Hash: "ha"}, rag.Book{Title: "B", Hash: "hb"}
	for _, have := range []string{"/books/a", SampleSource} {
		t.Run(have, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Save(t.Context(), dir, a, oneChunk, SaveOptions{Options: "o", Source: have}); err != nil {
				t.Fatal(err)
			}
			wrote, err := Save(t.Context(), dir, b, oneChunk, SaveOptions{Options: "o", Source: "/books/b"})
			var other *OtherBookError
			if wrote || !errors.As(err, &other) {
				t.Fatalf("Save = %v, %v; want an OtherBookError", wrote, err)
			}
			if ix, _ := Load(dir); ix.Book.Hash != "ha" {
				t.Errorf("index holds %s, want ha", ix.Book.Hash)
			}
			if want := "holds the index of another book (" + have + "), not of /books/b"; !strings.Contains(err.Error(), want) {
				t.Errorf("message %q, want %q", err, want)
			}
		})
	}
}
