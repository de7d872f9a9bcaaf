//go:build unix

package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A second writer that finds the lock taken before its holder recorded
// its pid waits for the pid rather than saying "pid unknown".
func TestBusyNamesAHolderStillRecordingItsPid(t *testing.T) {
	dir := t.TempDir()
	f, err := os.OpenFile(filepath.Join(dir, LockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(30 * time.Millisecond)
		f.WriteAt([]byte("4242\n"), 0)
	}()
	_, err = TryLock(dir)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.PID != 4242 || strings.Contains(err.Error(), "unknown") {
		t.Errorf("TryLock = %v, want a BusyError naming pid 4242", err)
	}
}
