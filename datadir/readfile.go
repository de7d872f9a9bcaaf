package datadir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The files of a data folder (the index, the derived data, the
// self-check) are read whole, so each is read only when it is a regular
// file, never through a symbolic link, and only up to a size: a link to
// /dev/zero, a FIFO or a file grown past any book's would otherwise hang
// the start or exhaust its memory. Such a file is treated as damaged:
// rebuilt (the index, the derived data) or read again from the book.

// Size caps of the data folder's files.
const (
	// MaxIndexBytes bounds index.json and derived.gob: a book of 8 MiB
	// pages writes an index of a few times its text, and the largest books
	// tried give tens of MB.
	MaxIndexBytes = 1 << 30
	// MaxSmallFileBytes bounds the small JSON files kept beside the index
	// (the self-check, the embedding stamp), which are a few hundred bytes.
	MaxSmallFileBytes = 1 << 20
)

var (
	// ErrNotRegular is ReadFile's error for a symbolic link, a device, a
	// FIFO or a folder where a file is kept.
	ErrNotRegular = errors.New("not a regular file (a symbolic link, a device, a FIFO or a folder)")
	// ErrTooLarge is ReadFile's error for a file over its size cap.
	ErrTooLarge = errors.New("larger than its size cap")
)

// ReadFile reads a file of a data folder whole: a regular file, opened
// without following a symbolic link, of at most limit bytes. It fails with
// an error wrapping ErrNotRegular or ErrTooLarge otherwise, and with
// fs.ErrNotExist when there is no such file.
func ReadFile(path string, limit int64) ([]byte, error) {
	name := filepath.Base(path)
	// Lstat first: where O_NOFOLLOW does not exist, it still sees a link.
	info, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: %w", name, ErrNotRegular)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		if info, lerr := os.Lstat(path); lerr == nil && !info.Mode().IsRegular() {
			return nil, fmt.Errorf("read %s: %w", name, ErrNotRegular) // replaced in between
		}
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	defer f.Close()
	// The file opened is the one checked: a link put in its place after
	// the Lstat is refused by O_NOFOLLOW, and this sees what was opened.
	info, err = f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: %w", name, ErrNotRegular)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("read %s: %w: %d bytes, over %d", name, ErrTooLarge, info.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("read %s: %w: grew past %d bytes while read", name, ErrTooLarge, limit)
	}
	return b, nil
}

// WriteFile writes the parts, one after another, to dir/name: written
// aside, then renamed, so a reader sees the old file or the new, never
// half of one.
func WriteFile(dir, name string, parts ...[]byte) error {
	tmp, err := os.CreateTemp(dir, name+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	for _, p := range parts {
		if err == nil {
			_, err = tmp.Write(p)
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	return err
}
