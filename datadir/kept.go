package datadir

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Kept files hold what is derived from an index at a cost and needed
// only now and then: the answerer's book side (AnswererName), megabytes
// that a start need not hold. Like derived.gob they are kept under a key
// naming what they were derived from and by which program; unlike it,
// the key comes first in a short header, with the size and sum of the
// data after it, so a start can tell the file is current by reading the
// header alone, and the data is read and checked when first needed.

// AnswererName is the file beside the index that holds the answerer's
// book side.
const AnswererName = "answerer.kept"

// keptMagic opens a kept file; its last digit is the layout's version.
const keptMagic = "textbook-rag kept 1\n"

// Bounds on a kept file: a key is a hex digest, the data at most
// MaxKeptSize. A header past them is not one this program wrote.
const (
	maxKeyBytes = 256
	MaxKeptSize = 1 << 30
)

// errNotKept is the error of a kept file written under another key, by
// another layout, or cut or changed since.
var errNotKept = errors.New("not kept for these chunks")

// SaveKept keeps data in dir/name under key: written aside, then
// renamed, so a reader sees the old file or the new.
func SaveKept(dir, name, key string, data []byte) error {
	if len(key) > maxKeyBytes || len(data) > MaxKeptSize {
		return fmt.Errorf("keep %s: key or data too long", name)
	}
	var head bytes.Buffer
	head.WriteString(keptMagic)
	binary.Write(&head, binary.BigEndian, uint16(len(key)))
	head.WriteString(key)
	binary.Write(&head, binary.BigEndian, uint64(len(data)))
	sum := sha256.Sum256(data)
	head.Write(sum[:])
	if err := WriteFile(dir, name, head.Bytes(), data); err != nil {
		return fmt.Errorf("keep %s: %w", name, err)
	}
	return nil
}

// keptHeader is what opens a kept file.
type keptHeader struct {
	key  string
	size int64
	sum  [sha256.Size]byte
}

// openKept opens dir/name, a regular file and not a link, and reads its
// header; the reader is left at the data.
func openKept(dir, name string) (*os.File, *bufio.Reader, keptHeader, error) {
	var h keptHeader
	path := filepath.Join(dir, name)
	info, err := os.Lstat(path)
	if err != nil {
		return nil, nil, h, fmt.Errorf("read %s: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		return nil, nil, h, fmt.Errorf("read %s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, h, fmt.Errorf("read %s: %w", name, err)
	}
	// The file opened is the one looked at, not a link put in its place.
	if opened, err := f.Stat(); err != nil || !os.SameFile(info, opened) {
		f.Close()
		return nil, nil, h, fmt.Errorf("read %s: the file changed while opened", path)
	}
	r := bufio.NewReader(f)
	magic := make([]byte, len(keptMagic))
	var n uint16
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != keptMagic || binary.Read(r, binary.BigEndian, &n) != nil || n > maxKeyBytes {
		f.Close()
		return nil, nil, h, fmt.Errorf("read %s: %w", name, errNotKept)
	}
	key := make([]byte, n)
	var size uint64
	if _, err := io.ReadFull(r, key); err != nil || binary.Read(r, binary.BigEndian, &size) != nil || size > MaxKeptSize {
		f.Close()
		return nil, nil, h, fmt.Errorf("read %s: %w", name, errNotKept)
	}
	if _, err := io.ReadFull(r, h.sum[:]); err != nil {
		f.Close()
		return nil, nil, h, fmt.Errorf("read %s: %w", name, errNotKept)
	}
	headBytes := int64(len(keptMagic)) + 2 + int64(n) + 8 + sha256.Size
	if info.Size() != headBytes+int64(size) {
		f.Close()
		return nil, nil, h, fmt.Errorf("read %s: %w", name, errNotKept)
	}
	h.key, h.size = string(key), int64(size)
	return f, r, h, nil
}

// KeptUnder reports whether dir/name holds data kept under key, by its
// header alone: whether the data still matches its sum is ReadKept's
// to tell.
func KeptUnder(dir, name, key string) bool {
	f, _, h, err := openKept(dir, name)
	if err != nil {
		return false
	}
	f.Close()
	return h.key == key
}

// ReadKept returns the data kept in dir/name under key. It fails when
// there is none under that key, or the data does not match its sum.
func ReadKept(dir, name, key string) ([]byte, error) {
	f, r, h, err := openKept(dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if h.key != key {
		return nil, fmt.Errorf("read %s: %w", name, errNotKept)
	}
	data := make([]byte, h.size)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if sha256.Sum256(data) != h.sum {
		return nil, fmt.Errorf("read %s: %w", name, errNotKept)
	}
	return data, nil
}

// removeStaleTemp removes the temp files (those glob pattern matches in
// dir) that writers killed mid-write left behind, once older than
// StaleAge: they are written without the lock, so a younger one may be a
// live writer's.
func removeStaleTemp(dir, pattern string) {
	paths, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return
	}
	for _, p := range paths {
		if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() && time.Since(info.ModTime()) >= StaleAge {
			os.Remove(p)
		}
	}
}
