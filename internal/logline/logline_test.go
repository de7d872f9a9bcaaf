package logline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/textbook-rag/rag/internal/smalldisk"
)

// disk is a destination with room for a number of bytes: a write past it
// writes what fits and fails with ENOSPC, as write(2) on a full disk
// does. With f set the bytes go to that file, otherwise to a buffer, as
// through a pipe, which cannot take them back.
type disk struct {
	mu   sync.Mutex
	room int
	f    *os.File
	buf  bytes.Buffer
}

func (d *disk) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := min(len(p), d.room)
	if d.f != nil {
		n, _ = d.f.Write(p[:n])
	} else {
		d.buf.Write(p[:n])
	}
	d.room -= n
	if n < len(p) {
		return n, &os.PathError{Op: "write", Path: "log", Err: syscall.ENOSPC}
	}
	return n, nil
}

func (d *disk) setRoom(n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.room = n
}

// fileDisk exposes the file's Stat, Seek and Truncate, as an *os.File does.
type fileDisk struct{ *disk }

func (d fileDisk) Stat() (os.FileInfo, error)                { return d.f.Stat() }
func (d fileDisk) Seek(off int64, whence int) (int64, error) { return d.f.Seek(off, whence) }
func (d fileDisk) Truncate(size int64) error                 { return d.f.Truncate(size) }

// writeBoth writes n lines to w, taking turns: a slog JSON record (as the
// access log writes them) and a JSON line of another writer (as the
// refusal log writes them). It returns how many writes failed.
func writeBoth(w *Writer, from, n int) int {
	failed := 0
	logger := slog.New(slog.NewJSONHandler(failCounter{w, &failed}, nil))
	for i := from; i < from+n; i++ {
		if i%2 == 0 {
			logger.Info("request", slog.Int("line", i), slog.String("path", "/api/chat"))
			continue
		}
		line := fmt.Sprintf(`{"event":"refusal","line":%d,"question":"%s"}`+"\n", i, strings.Repeat("banana bread ", 5))
		if _, err := w.Write([]byte(line)); err != nil {
			failed++
		}
	}
	return failed
}

// failCounter counts failed writes of a slog handler, which drops them.
type failCounter struct {
	w      *Writer
	failed *int
}

func (c failCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil {
		*c.failed++
	}
	return n, err
}

// checkLines checks that every line of log is one whole JSON object with
// a line number, no two lines run together and no NUL byte was left by a
// removed line; it returns the line numbers and the cut lines left.
func checkLines(t *testing.T, log string) (map[int]bool, int) {
	t.Helper()
	if strings.ContainsRune(log, 0) {
		t.Errorf("the log holds NUL bytes: a removed line left a hole")
	}
	seen := map[int]bool{}
	cut := 0
	for _, line := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		var v struct{ Line *int }
		if err := json.Unmarshal([]byte(line), &v); err != nil || v.Line == nil {
			if strings.Count(line, `"line"`) > 1 || strings.Count(line, "{") > 1 {
				t.Errorf("two lines run together: %q", line)
			}
			cut++
			continue
		}
		if seen[*v.Line] {
			t.Errorf("line %d twice", *v.Line)
		}
		seen[*v.Line] = true
	}
	return seen, cut
}

// Two writers share a destination that fills up partway through, then
// frees space: every line is whole or absent on a file (cut bytes are
// removed, with or without O_APPEND), whole or ended on a stream; every
// failure is counted; writing recovers.
func TestWholeLines(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    bool
		flags   int
		maxCuts int
	}{
		{"append file", true, os.O_APPEND, 0},
		{"file", true, os.O_TRUNC, 0},
		{"stream", false, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &disk{room: 3000}
			w := New(d)
			if tc.file {
				f, err := os.OpenFile(filepath.Join(t.TempDir(), "log"), os.O_CREATE|os.O_WRONLY|tc.flags, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { f.Close() })
				d.f = f
				w = New(fileDisk{d})
			}
			const before, after = 60, 20
			failed := writeBoth(w, 0, before)
			if failed == 0 || failed == before {
				t.Fatalf("%d of %d writes failed: the disk should fill partway", failed, before)
			}
			d.setRoom(1 << 20)
			if n := writeBoth(w, before, after); n != 0 {
				t.Fatalf("%d writes failed after space returned", n)
			}
			log := d.buf.String()
			if tc.file {
				b, err := os.ReadFile(d.f.Name())
				if err != nil {
					t.Fatal(err)
				}
				log = string(b)
			}
			seen, cuts := checkLines(t, log)
			if cuts > tc.maxCuts {
				t.Errorf("%d cut lines left, want at most %d", cuts, tc.maxCuts)
			}
			if got := int(w.Failures()); got != failed || len(seen)+failed != before+after {
				t.Errorf("%d whole lines, %d failures counted (%d seen failing), want %d lines in all", len(seen), got, failed, before+after)
			}
			for i := before; i < before+after; i++ {
				if !seen[i] {
					t.Errorf("line %d, written after space returned, is missing", i)
				}
			}
		})
	}
}

// The same on a real file system that runs out of space, with stderr's
// usual destination: a file opened without O_APPEND (`2>log`).
func TestWholeLinesFullDisk(t *testing.T) {
	dir := smalldisk.Mount(t, 64<<10)
	f, err := os.OpenFile(filepath.Join(dir, "stderr.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := New(f)
	const before, during, after = 10, 200, 10
	failed := writeBoth(w, 0, before)
	free := smalldisk.Fill(t, dir)
	failed += writeBoth(w, before, during)
	free()
	failed += writeBoth(w, before+during, after)
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	seen, cuts := checkLines(t, string(b))
	t.Logf("%d lines written whole, %d failed and counted", len(seen), failed)
	if failed == 0 {
		t.Error("no write failed: the test did not fill the disk")
	}
	if cuts > 0 || len(seen)+failed != before+during+after || int(w.Failures()) != failed {
		t.Errorf("%d whole lines, %d cut, %d failed (%d counted), want %d lines", len(seen), cuts, failed, w.Failures(), before+during+after)
	}
}

// A write that fails outright writes nothing and is counted; New of a
// Writer is that Writer.
func TestFailedWrite(t *testing.T) {
	d := &disk{room: 0}
	w := New(d)
	if New(w) != w {
		t.Error("New(w) wrapped a Writer again")
	}
	n, err := w.Write([]byte("line\n"))
	if n != 0 || !errors.Is(err, syscall.ENOSPC) || w.Failures() != 1 || d.buf.Len() != 0 {
		t.Errorf("Write = %d, %v; %d failures, %q written", n, err, w.Failures(), d.buf.String())
	}
}
