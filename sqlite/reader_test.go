package sqlite

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// fileSums are the contents of the files named path and path-*.
func fileSums(t *testing.T, path string) map[string][32]byte {
	t.Helper()
	paths, _ := filepath.Glob(path + "*")
	out := map[string][32]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = sha256.Sum256(b)
	}
	return out
}

func sameSums(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A Reader sees what a live History committed and writes neither the
// database nor its write-ahead log; with no History open it creates no
// file. A missing file is an empty history. (That it leaves the
// shared-memory index alone too shows only across processes, where
// readonly_shm takes effect: in one process SQLite shares the History's
// writable mapping. TestTwoBooksOneDataDir checks it with real servers.)
func TestReaderWritesNothing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	r, err := OpenReader(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	xs, _, err := r.ExchangePage(ctx, time.Time{}, time.Now(), rag.ExchangeCursor{}, 10)
	if err != nil || len(xs) != 0 {
		t.Fatalf("missing file: %v, %v; want an empty history", xs, err)
	}
	r.Close()
	if _, err := os.Stat(path); err == nil {
		t.Fatal("OpenReader created the file")
	}

	h, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	sid := uuid.NewString()
	for _, q := range []string{"one", "two"} {
		if err := h.AppendExchange(ctx, sid, question(q), answer("answer to "+q)); err != nil {
			t.Fatal(err)
		}
	}
	read := func(what string, shared bool) {
		t.Helper()
		before := fileSums(t, path)
		if shared {
			delete(before, "history.db-shm")
		}
		r, err := OpenReader(ctx, path)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		xs, _, err := r.ExchangePage(ctx, time.Time{}, time.Now().Add(time.Hour), rag.ExchangeCursor{}, 10)
		r.Close()
		if err != nil || len(xs) != 2 || xs[1].Question != "two" {
			t.Errorf("%s: read %+v, %v; want both exchanges", what, xs, err)
		}
		after := fileSums(t, path)
		if shared {
			delete(after, "history.db-shm")
		}
		if !sameSums(before, after) {
			t.Errorf("%s: the reader changed the files: %d before, %d after", what, len(before), len(after))
		}
	}
	read("beside the open history", true)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	read("after the history closed", false)
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Error("the reader left a write-ahead log behind")
	}
}
