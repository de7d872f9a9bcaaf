// Package smalldisk gives tests a real file system that runs out of space:
// a small tmpfs mounted on a temporary directory. Mounting needs Linux and
// the right to mount (root, or CAP_SYS_ADMIN); without them the test
// skips and says why.
package smalldisk

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// SkipMessage is the reason a full-disk test skips when it cannot mount
// its tmpfs: one message for all of them, without the sizes and
// directories, which are logged before it.
const SkipMessage = "full-disk test skipped: mounting a small tmpfs needs root or CAP_SYS_ADMIN"

// Fill writes a file in dir until the file system has no space left, and
// returns a function that deletes it, giving the space back.
func Fill(t testing.TB, dir string) (free func()) {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatalf("smalldisk: %v", err)
	}
	block := make([]byte, 4096)
	for {
		if _, err = f.Write(block); err != nil {
			break
		}
	}
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("smalldisk: filling %s stopped with %v, not ENOSPC", dir, err)
	}
	return func() {
		if err := os.Remove(path); err != nil {
			t.Errorf("smalldisk: %v", err)
		}
	}
}
