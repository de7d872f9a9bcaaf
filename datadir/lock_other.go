//go:build !unix

package datadir

// LockName is the file in a data directory that writers lock.
const LockName = "lock"

// locking says whether TryLock excludes other writers.
const locking = false

// Lock is a no-op where flock does not exist: writers are not excluded.
type Lock struct{}

// TryLock does nothing on this platform.
func TryLock(dir string) (*Lock, error) { return &Lock{}, nil }

// Unlock does nothing on this platform.
func (l *Lock) Unlock() error { return nil }
