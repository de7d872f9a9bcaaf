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

// Only regular files inside the book are read: a link out of the book, a
// link to /dev/zero and a FIFO are skipped with a warning, and the load
// neither hangs nor runs out of memory.
func TestOnlyRegularFiles(t *testing.T) {
	root := t.TempDir()
	book := filepath.Join(root, "book")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(book, "m"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(book, "m", "a.md"), "# A\n\nA page about robots that belongs to the book.\n")
	write(filepath.Join(outside, "secret.md"), "# Secret\n\nPASSWORD words that must never be indexed.\n")
	links := map[string]string{
		"leak.md":   filepath.Join(outside, "secret.md"),
		"zero.md":   "/dev/zero",
		"m/dir":     outside,
		"m/rel.md":  "../../outside/secret.md",
		"hosts.mdx": "/etc/hostname",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(book, name)); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(book, "m", "pipe.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	readers := map[string]func(Options) (fs.FS, error){
		"os.DirFS": func(Options) (fs.FS, error) { return os.DirFS(book), nil },
		"ReadDir":  func(o Options) (fs.FS, error) { return ReadDir(t.Context(), book, o) },
	}
	for name, read := range readers {
		t.Run(name, func(t *testing.T) {
			w := warnings{}
			fsys, err := read(w.opts())
			if err != nil {
				t.Fatal(err)
			}
			_, chunks, err := Load(t.Context(), fsys, w.opts())
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range chunks {
				if c.ChapterPath != "m/a" || strings.Contains(c.Text, "PASSWORD") {
					t.Errorf("read %s", c.ChapterPath)
				}
			}
			for _, p := range []string{"leak.md", "zero.md", "m/dir", "m/rel.md", "hosts.mdx"} {
				if !strings.Contains(w[p], "symbolic link") {
					t.Errorf("warning for %s = %q", p, w[p])
				}
			}
			if !strings.Contains(w["m/pipe.md"], "named pipe") {
				t.Errorf("warning for the FIFO = %q", w["m/pipe.md"])
			}
		})
	}
}

// A _category_.json that is a symbolic link or a FIFO is left out with a
// warning, as a page would be.
func TestCategoryNotRegularWarned(t *testing.T) {
	tests := []struct {
		name string
		make func(p string) error
		want string
	}{
		{"symbolic link", func(p string) error { return os.Symlink("/etc/hostname", p) }, "symbolic link"},
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "named pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			book := t.TempDir()
			if err := os.MkdirAll(filepath.Join(book, "m"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(book, "m", "a.md"), []byte("# A\n\nA page about robots.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := tt.make(filepath.Join(book, "m", "_category_.json")); err != nil {
				t.Fatal(err)
			}
			w := warnings{}
			if _, _, err := Load(t.Context(), os.DirFS(book), w.opts()); err != nil {
				t.Fatal(err)
			}
			if msg := w["m/_category_.json"]; !strings.Contains(msg, "skipped") || !strings.Contains(msg, tt.want) {
				t.Errorf("warning = %q, want skipped: %s", msg, tt.want)
			}
		})
	}
}

// An mdBook's include is read inside the book only: a link (to a file
// outside, or to a folder outside) and a FIFO are not followed, with a
// warning, and the include line goes.
func TestIncludesOnlyRegularFilesInTheBook(t *testing.T) {
	root := t.TempDir()
	book := filepath.Join(root, "book")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(book, "src"), filepath.Join(book, "listings"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.rs"), "PASSWORD\n")
	write(filepath.Join(book, "listings", "ok.rs"), "fn ok() {}\n")
	write(filepath.Join(book, "src", "SUMMARY.md"), "- [A](a.md)\n")
	write(filepath.Join(book, "src", "a.md"), "# A\n\n## Code\n\n```rust\n"+
		"{{#include ../listings/ok.rs}}\n{{#include ../listings/leak.rs}}\n{{#include ../listings/out/secret.rs}}\n"+
		"{{#include ../listings/fifo.rs}}\n{{#include ../../outside/secret.rs}}\n```\n")
	for name, target := range map[string]string{"leak.rs": filepath.Join(outside, "secret.rs"), "out": outside} {
		if err := os.Symlink(target, filepath.Join(book, "listings", name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(book, "listings", "fifo.rs"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &warnLog{}
	snap, err := ReadDir(t.Context(), book, w.opts())
	if err != nil {
		t.Fatal(err)
	}
	_, chunks, err := Load(t.Context(), snap, w.opts())
	if err != nil {
		t.Fatal(err)
	}
	text := allText(chunks)
	if !strings.Contains(text, "```rust\nfn ok() {}\n```") {
		t.Errorf("the include inside the book is not read, or a link left its line:\n%s", text)
	}
	if strings.Contains(text, "PASSWORD") || strings.Contains(text, "{{#") {
		t.Errorf("chunks:\n%s", text)
	}
	for _, want := range []string{
		"listings/leak.rs: skipped: a symbolic link",
		"listings/fifo.rs: skipped: a named pipe",
		"{{#include ../listings/out/secret.rs}} left out",
		"{{#include ../../outside/secret.rs}} left out: ../../outside/secret.rs leads out of the book",
	} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("no warning %q in:\n%s", want, w)
		}
	}
}
