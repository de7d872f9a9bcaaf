package sqlite

import (
	"errors"
	"path/filepath"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/textbook-rag/rag"
)

// minFreeBytes is the free space under which an I/O error is put down to
// a full disk: SQLite reports a full disk as SQLITE_FULL when it extends
// the database or its journal, but as a plain I/O error (e.g. 4874,
// SQLITE_IOERR_SHMSIZE) when it cannot grow the WAL index at open.
const minFreeBytes = 1 << 20

// noSpace turns a full-disk error into an EUNAVAILABLE *rag.Error (503,
// Retry-After: the store writes again once space is freed, no restart
// needed) that says so; other errors are returned as they are.
func (h *History) noSpace(err error) error {
	if !diskFull(h.path, err) {
		return err
	}
	return rag.WrapError(rag.EUNAVAILABLE, "The chat history cannot be written: the disk is full.", err)
}

// diskFull reports whether err, from the database at path, means that
// the disk has no space left.
func diskFull(path string, err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		return true
	case sqlite3.SQLITE_IOERR:
		free, ok := freeBytes(filepath.Dir(path))
		return ok && free < minFreeBytes
	}
	return false
}
