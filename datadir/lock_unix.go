//go:build unix

package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// LockName is the file in a data directory that writers lock.
const LockName = "lock"

// locking says whether TryLock excludes other writers.
const locking = true

// Lock is a writer's exclusive hold on a data directory: an flock on its
// lock file, released by Unlock or by the process's death (kill -9
// included), so a crashed writer never leaves the directory locked.
type Lock struct{ f *os.File }

// TryLock takes the data directory's write lock without waiting; when
// another process holds it, the error is a *BusyError naming that
// process.
func TryLock(dir string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	// The pid is written into the lock file: never through a link.
	f, err := os.OpenFile(filepath.Join(dir, LockName), os.O_RDWR|os.O_CREATE|openFlags, 0o644)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("lock %s: %s: %w", dir, LockName, ErrNotRegular)
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("lock %s: %s: %w", dir, LockName, ErrNotRegular)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &BusyError{Dir: dir, PID: holder(f)}
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	// The pid is only for the message a second writer prints (see
	// holder): emptied first, the file never names a past holder.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// pidWait bounds how long a second writer waits for the holder of the
// lock to record its pid: the holder writes it just after it takes the
// lock, and a writer that reads in between would find no pid.
const pidWait = 200 * time.Millisecond

// holder reads the pid the lock's holder recorded in f, waiting for it up
// to pidWait; 0 when none appears.
func holder(f *os.File) int {
	deadline := time.Now().Add(pidWait)
	for {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n]))); err == nil && pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			return 0
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Unlock releases the lock. The file stays: removing it would let two
// writers lock two different files of the same name.
func (l *Lock) Unlock() error {
	return l.f.Close()
}
