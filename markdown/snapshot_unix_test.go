//go:build unix

package markdown

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// raceBook writes a book of two pages and a secret outside it, and sets
// the hook that runs between listing a file and reading it.
func raceBook(t *testing.T, hook func(book, outside, p string)) (book string) {
	t.Helper()
	dir := t.TempDir()
	book, outside := filepath.Join(dir, "book"), filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(book, "m"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(book, "m", "a.md"):    "# A\n\nVERSION1 of a page about robots.\n",
		filepath.Join(book, "m", "b.md"):    "# B\n\nVERSION1 of a page about sensors.\n",
		filepath.Join(outside, "secret.md"): "# Secret\n\nPASSWORD words that must never be indexed.\n",
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	beforeOpen = func(p string) { hook(book, outside, p) }
	t.Cleanup(func() { beforeOpen = nil })
	return book
}

func snapshotText(t *testing.T, snap fs.FS) string {
	t.Helper()
	var all strings.Builder
	err := fs.WalkDir(snap, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(snap, p)
		all.WriteString(p + ":" + string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return all.String()
}

// A page swapped for a link out of the book, for a link inside it, or for
// a FIFO after its path was checked and before it is opened is never read: the read
// stays inside the book, opens without following the link or blocking on
// the FIFO, and skips the file with a warning.
func TestReadDirFileSwappedDuringRead(t *testing.T) {
	swap := func(make func(book, outside, p string) error) func(book, outside, p string) {
		done := false
		return func(book, outside, p string) {
			if p != "m/b.md" || done {
				return
			}
			done = true
			full := filepath.Join(book, p)
			if err := os.Remove(full); err != nil {
				t.Error(err)
			}
			if err := make(book, outside, full); err != nil {
				t.Error(err)
			}
		}
	}
	tests := []struct {
		name string
		make func(book, outside, p string) error
		want string
	}{
		{"link out of the book", func(book, outside, p string) error {
			return os.Symlink(filepath.Join(outside, "secret.md"), p)
		}, "symbolic link"},
		{"relative link out of the book", func(book, outside, p string) error {
			return os.Symlink("../../outside/secret.md", p)
		}, "symbolic link"},
		{"link to /etc/hostname", func(book, outside, p string) error {
			return os.Symlink("/etc/hostname", p)
		}, "symbolic link"},
		{"link inside the book", func(book, outside, p string) error {
			return os.Symlink("a.md", p)
		}, "link"},
		{"FIFO", func(book, outside, p string) error { return syscall.Mkfifo(p, 0o644) }, "named pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			book := raceBook(t, swap(tt.make))
			w := warnings{}
			snap, err := ReadDir(t.Context(), book, w.opts())
			if err != nil {
				t.Fatal(err)
			}
			text := snapshotText(t, snap)
			if strings.Contains(text, "PASSWORD") || strings.Contains(text, "m/b.md") {
				t.Errorf("the swapped file was read: %q", text)
			}
			if !strings.Contains(text, "m/a.md:# A") {
				t.Errorf("the book's own page is missing: %q", text)
			}
			if msg := w["m/b.md"]; !strings.Contains(msg, "skipped") || !strings.Contains(msg, tt.want) {
				t.Errorf("warning for m/b.md = %q, want skipped: %s", msg, tt.want)
			}
		})
	}
}

// A page removed after the listing is skipped with a warning, and the
// book is read.
func TestReadDirFileRemovedDuringRead(t *testing.T) {
	book := raceBook(t, func(book, outside, p string) {
		if p == "m/b.md" {
			os.Remove(filepath.Join(book, p))
		}
	})
	w := warnings{}
	snap, err := ReadDir(t.Context(), book, w.opts())
	if err != nil {
		t.Fatal(err)
	}
	if _, chunks, err := Load(t.Context(), snap, DefaultOptions()); err != nil || len(chunks) == 0 {
		t.Fatalf("Load of the snapshot = %d chunks, %v", len(chunks), err)
	}
	if msg := w["m/b.md"]; !strings.Contains(msg, "removed while the book was read") {
		t.Errorf("warning for m/b.md = %q", msg)
	}
}

// A book edited while it is read (a page already read is rewritten) is
// read again: the snapshot holds one version, never a mix of two.
func TestReadDirOneVersion(t *testing.T) {
	book := raceBook(t, func(book, outside, p string) {
		if p != "m/b.md" {
			return
		}
		for _, name := range []string{"a.md", "b.md"} {
			f := filepath.Join(book, "m", name)
			b, _ := os.ReadFile(f)
			if strings.Contains(string(b), "VERSION1") {
				os.WriteFile(f, []byte(strings.Replace(string(b), "VERSION1", "VERSION2, longer", 1)), 0o644)
			}
		}
	})
	snap, err := ReadDir(t.Context(), book, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if text := snapshotText(t, snap); strings.Contains(text, "VERSION1") || strings.Count(text, "VERSION2") != 2 {
		t.Errorf("snapshot holds a mix of versions: %q", text)
	}
}
