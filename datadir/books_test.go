package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/textbook-rag/rag"
)

func TestKey(t *testing.T) {
	tests := []struct{ source, prefix string }{
		{SampleSource, "sample-"},
		{"/home/ann/Robotics Course/docs", "robotics-course-docs-"},
		{"/srv/books/ml-for-beginners", "ml-for-beginners-"},
		{"/srv/x/src", "x-src-"},
		{"/", "book-"},
		{"/srv/" + strings.Repeat("a", 60), strings.Repeat("a", 40) + "-"},
	}
	for _, tt := range tests {
		got := Key(tt.source)
		if !strings.HasPrefix(got, tt.prefix) || len(got) != len(tt.prefix)+12 {
			t.Errorf("Key(%q) = %q, want %q and 12 hex digits", tt.source, got, tt.prefix)
		}
	}
	if Key("/a/docs") == Key("/b/a/docs") || Key("/a/docs") != Key("/a/docs") {
		t.Error("Key must tell sources apart and be stable")
	}
}

// Two books saved into one data directory live side by side, and each
// load reads its own.
func TestBooksSideBySide(t *testing.T) {
	dir := t.TempDir()
	for _, src := range []string{"/books/a", "/books/b"} {
		book := rag.Book{Title: src, Hash: "h" + src}
		if wrote, err := Save(t.Context(), Locate(dir, src), book, oneChunk, SaveOptions{Options: "o", Source: src, Course: "Course " + src}); err != nil || !wrote {
			t.Fatalf("Save %s = %v, %v", src, wrote, err)
		}
	}
	for _, src := range []string{"/books/a", "/books/b"} {
		ix, err := Load(Locate(dir, src))
		if err != nil || ix.Source != src || ix.Course != "Course "+src {
			t.Fatalf("Load of %s: %+v, %v", src, ix, err)
		}
	}
	books, err := Books(dir)
	if err != nil || len(books) != 2 {
		t.Fatalf("Books = %v, %v; want 2", books, err)
	}
	if _, err := Choose(dir, ""); err == nil || !strings.Contains(err.Error(), "holds 2 books; choose one with --book") {
		t.Errorf("Choose among two: %v", err)
	}
	for _, name := range []string{Key("/books/a"), "a-", "/books/a", "Course /books/a"} {
		if e, err := Choose(dir, name); err != nil || e.Source != "/books/a" {
			t.Errorf("Choose(%q) = %+v, %v", name, e, err)
		}
	}
	if _, err := Choose(dir, "c"); err == nil || !strings.Contains(err.Error(), Key("/books/b")) {
		t.Errorf("Choose of an unknown name: %v, want the books listed", err)
	}
	if _, err := Choose(t.TempDir(), ""); !errors.Is(err, ErrNoIndex) {
		t.Errorf("Choose on an empty dir: %v, want ErrNoIndex", err)
	}
}

// The book a data directory kept at its root before books had folders
// stays there, found by its source; another book gets a folder.
func TestLocateLegacyRoot(t *testing.T) {
	dir := t.TempDir()
	if _, err := Save(t.Context(), dir, rag.Book{Title: "Old", Hash: "h"}, oneChunk, SaveOptions{Options: "o", Source: "/books/old"}); err != nil {
		t.Fatal(err)
	}
	if got := Locate(dir, "/books/old"); got != dir {
		t.Errorf("Locate of the root's book = %s, want the root", got)
	}
	if got, want := Locate(dir, "/books/new"), BookDir(dir, "/books/new"); got != want {
		t.Errorf("Locate of another book = %s, want %s", got, want)
	}
	e, err := Choose(dir, "")
	if err != nil || e.Dir != dir || e.Course != "Old" {
		t.Errorf("Choose = %+v, %v; want the root's book", e, err)
	}
	// Once the book has its own folder, the folder is its place.
	if err := os.MkdirAll(BookDir(dir, "/books/old"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Locate(dir, "/books/old"); got != BookDir(dir, "/books/old") {
		t.Errorf("Locate with the folder = %s", got)
	}
}

// Saving a current index writes nothing: not the index, not the lock
// file, not the folder.
func TestSaveCurrentWritesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "book")
	book := rag.Book{Title: "B", Hash: "h"}
	o := SaveOptions{Options: "o", Source: "/b"}
	if _, err := Save(t.Context(), dir, book, oneChunk, o); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for _, name := range []string{FileName, LockName} {
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	lock, _ := os.ReadFile(filepath.Join(dir, LockName))
	if err := os.WriteFile(filepath.Join(dir, LockName), append(lock, "pid of another writer\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(filepath.Join(dir, LockName), old, old)
	before := snapshot(t, dir)
	if wrote, err := Save(t.Context(), dir, book, oneChunk, o); err != nil || wrote {
		t.Fatalf("Save of the current index = %v, %v", wrote, err)
	}
	if after := snapshot(t, dir); after != before {
		t.Errorf("Save of the current index changed the folder:\nbefore %s\nafter  %s", before, after)
	}
	// A new course name is a change: the index is written again.
	o.Course = "Renamed"
	if wrote, err := Save(t.Context(), dir, book, oneChunk, o); err != nil || !wrote {
		t.Errorf("Save with a new course name = %v, %v; want a write", wrote, err)
	}
}

func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	ds, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		info, _ := d.Info()
		data, _ := os.ReadFile(filepath.Join(dir, d.Name()))
		b.WriteString(d.Name() + " " + info.ModTime().String() + " " + string(data) + "|")
	}
	return b.String()
}

// Replicas of one book starting together on one data directory share its
// folder: one writes the index, the others wait for its lock and find it
// current.
func TestReplicasShareTheBookFolder(t *testing.T) {
	dir := t.TempDir()
	book := rag.Book{Title: "B", Hash: "h"}
	o := SaveOptions{Options: "o", Source: "/books/b", Wait: 10 * time.Second}
	const replicas = 4
	wrote := make(chan bool, replicas)
	errs := make(chan error, replicas)
	for range replicas {
		go func() {
			w, err := Save(t.Context(), Locate(dir, o.Source), book, oneChunk, o)
			wrote <- w
			errs <- err
		}()
	}
	writes := 0
	for range replicas {
		if <-wrote {
			writes++
		}
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if writes != 1 {
		t.Errorf("%d replicas wrote the index, want 1", writes)
	}
	if books, _ := Books(dir); len(books) != 1 {
		t.Errorf("books %v, want the one", books)
	}
}

// The list of books a person chooses from quotes a folder name or path
// with control characters or escapes: nothing reaches the terminal raw.
func TestChooseListQuotesControlCharacters(t *testing.T) {
	e := Entry{Name: "evil\x1b[2J\x07-0123", Source: "/books/\x1b]0;pwned\x07", Course: "Course\x1b[31m"}
	got := (&ChooseError{Dir: "/data", Books: []Entry{e}}).Error()
	for _, c := range got {
		if c == '\x1b' || c == '\x07' {
			t.Fatalf("the list holds a raw control character: %q", got)
		}
	}
	if !strings.Contains(got, `"evil\x1b[2J\a-0123"`) {
		t.Errorf("the folder name is not quoted: %q", got)
	}
	if plain := (Entry{Name: "robotics-0123", Source: "/books/robotics", Course: "Robotics"}).String(); plain != `robotics-0123: "Robotics" (/books/robotics)` {
		t.Errorf("a plain entry reads %q", plain)
	}
}
