package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/textbook-rag/rag"
)

// Reader reads a history file without writing to it, for the course
// report run beside a server: the file is opened read-only, no migration
// runs, and a missing file is an empty history, not a new file.
type Reader struct {
	db *sql.DB // nil: the file does not exist
}

var _ rag.ExchangeReader = (*Reader)(nil)

// OpenReader opens the history file at path for reading. While a server
// has the file open, the reader shares its write-ahead log (it needs
// the -wal and -shm files the server keeps) and sees every exchange the
// server has committed. With no server, the file is read as it is.
func OpenReader(ctx context.Context, path string) (*Reader, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite history %s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return &Reader{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open sqlite history %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("open sqlite history %s: the path is not a regular file", path)
	}
	q := url.Values{"mode": {"ro"}, "readonly_shm": {"1"}, "_busy_timeout": {fmt.Sprint(busyTimeout.Milliseconds())}}
	// With no write-ahead log beside it, no process has the file open (the
	// last to close it removes the log): read it as a file that does not
	// change, which creates no -wal or -shm file either.
	if _, err := os.Stat(abs + "-wal"); errors.Is(err, fs.ErrNotExist) {
		q.Set("immutable", "1")
	}
	u := url.URL{Scheme: "file", Path: abs, RawQuery: q.Encode()}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("open sqlite history %s: %w", path, err)
	}
	var id int
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&id); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite history %s: %w", path, err)
	}
	return &Reader{db: db}, nil
}

// ExchangePage is History.ExchangePage, read-only.
func (r *Reader) ExchangePage(ctx context.Context, from, to time.Time, after rag.ExchangeCursor, limit int) ([]rag.Exchange, rag.ExchangeCursor, error) {
	if r.db == nil {
		if limit <= 0 {
			return nil, after, rag.Errorf(rag.EINVALID, "page size must be positive")
		}
		return nil, after, nil
	}
	return exchangePage(ctx, r.db, from, to, after, limit)
}

// Close closes the file.
func (r *Reader) Close() error {
	if r.db == nil {
		return nil
	}
	return r.db.Close()
}
