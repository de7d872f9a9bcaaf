// Package logline keeps the lines of a log whole whatever the log is
// written to. A write to a full disk can be cut short: the line's first
// bytes land and the rest does not. Left there, the cut line swallows the
// start of the next one, whoever writes it (`{"time":"2026-11{"event":…`).
// A Writer is shared by everything that writes to one destination (the
// access log, the application log and the refusal log all go to stderr by
// default), and after a cut it removes the cut bytes from a regular file,
// or, on a destination it cannot take back (a pipe, a terminal), ends the
// cut line before the next, so that the next line stands on its own.
package logline

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
)

// Writer writes whole lines to a destination, one Write at a time, and
// counts the writes that failed or were cut short.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
	// cut: the last write left part of a line that could not be removed;
	// the next write ends it first.
	cut      bool
	failures atomic.Int64
}

// New returns a Writer to w; w itself when it is one already, so that
// everything written to one destination shares its Writer.
func New(w io.Writer) *Writer {
	if lw, ok := w.(*Writer); ok {
		return lw
	}
	return &Writer{w: w}
}

// file is a destination whose cut bytes can be removed: an *os.File.
type file interface {
	Stat() (os.FileInfo, error)
	Seek(offset int64, whence int) (int64, error)
	Truncate(size int64) error
}

// Write writes p, which should be one or more whole lines, in a single
// write to the destination. When that write fails or is cut short, what
// landed of p is removed from a regular file whose end it is, and
// otherwise ended with a newline before the next write; the failure is
// counted and returned, with the count of p's bytes that remain (0 when
// they were removed).
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf, prefix := p, 0
	if w.cut {
		buf = make([]byte, 0, len(p)+1)
		buf = append(append(buf, '\n'), p...)
		prefix = 1
	}
	n, err := w.w.Write(buf)
	if err == nil && n < len(buf) {
		err = io.ErrShortWrite
	}
	if n >= prefix {
		w.cut = false
	}
	if err == nil {
		return len(p), nil
	}
	w.failures.Add(1)
	part := n - prefix
	if part <= 0 {
		return 0, err
	}
	if w.undo(part) {
		return 0, err
	}
	w.cut = true
	return part, err
}

// undo removes the last n bytes written, when the destination is a
// regular file and they are still its last bytes (nobody else wrote
// after them), and puts the file's offset back at the new end, so that a
// file opened without O_APPEND gets no hole either. w.mu is held.
func (w *Writer) undo(n int) bool {
	f, ok := w.w.(file)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	end, err := f.Seek(0, io.SeekCurrent)
	if err != nil || end != fi.Size() || end < int64(n) {
		return false
	}
	if f.Truncate(end-int64(n)) != nil {
		return false
	}
	_, err = f.Seek(end-int64(n), io.SeekStart)
	return err == nil
}

// Failures counts the writes that failed or were cut short.
func (w *Writer) Failures() int64 { return w.failures.Load() }

// Unwrap returns the destination, for checks of what it is (a terminal?).
func (w *Writer) Unwrap() io.Writer { return w.w }
