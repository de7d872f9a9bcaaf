//go:build unix

package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/textbook-rag/rag"
)

// within runs f and fails the test when it has not returned in 10 s: a read
// of /dev/zero or of a FIFO would never return.
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("still reading after 10 s")
		return nil
	}
}

// The data folder's files are never read or written through a symbolic
// link, nor read from a FIFO: index.json or derived.gob linked to
// /dev/zero made a start read forever and die out of memory. Each is
// refused at once as no regular file; Save then replaces the link with a
// real index, and a lock file that is a link is refused, not written
// through.
func TestDataFilesAreNoLinks(t *testing.T) {
	for _, name := range []string{FileName, DerivedName} {
		for kind, mk := range map[string]func(p string) error{
			"link to /dev/zero": func(p string) error { return os.Symlink("/dev/zero", p) },
			"FIFO":              func(p string) error { return syscall.Mkfifo(p, 0o644) },
		} {
			t.Run(name+" "+kind, func(t *testing.T) {
				dir := t.TempDir()
				if err := mk(filepath.Join(dir, name)); err != nil {
					t.Skip(err)
				}
				var err error
				if name == FileName {
					err = within(t, func() error { _, err := Load(dir); return err })
					if _, berr := Books(dir); berr != nil {
						t.Errorf("Books: %v", berr)
					}
				} else {
					err = within(t, func() error { var v int; return LoadDerived(dir, "k", &v) })
				}
				if !errors.Is(err, ErrNotRegular) {
					t.Fatalf("read = %v, want ErrNotRegular", err)
				}
				if name == FileName && !Unusable(err) {
					t.Errorf("%v is not taken for an index to rebuild", err)
				}
			})
		}
	}
	t.Run("Save replaces a link", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Symlink("/dev/zero", filepath.Join(dir, FileName)); err != nil {
			t.Fatal(err)
		}
		err := within(t, func() error {
			_, err := Save(t.Context(), dir, rag.Book{Hash: "h"}, oneChunk, SaveOptions{Options: "o"})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if info, err := os.Lstat(filepath.Join(dir, FileName)); err != nil || !info.Mode().IsRegular() {
			t.Fatalf("index after Save: %v, %v", info, err)
		}
	})
	t.Run("lock file a link", func(t *testing.T) {
		dir, other := t.TempDir(), filepath.Join(t.TempDir(), "precious")
		if err := os.WriteFile(other, []byte("keep me"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(other, filepath.Join(dir, LockName)); err != nil {
			t.Fatal(err)
		}
		if l, err := TryLock(dir); !errors.Is(err, ErrNotRegular) {
			if l != nil {
				l.Unlock()
			}
			t.Errorf("TryLock = %v, want ErrNotRegular", err)
		}
		if b, _ := os.ReadFile(other); string(b) != "keep me" {
			t.Errorf("the file the lock links to now holds %q", b)
		}
	})
}
