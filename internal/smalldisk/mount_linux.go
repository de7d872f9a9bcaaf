package smalldisk

import (
	"fmt"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes on a new temporary directory,
// unmounted when the test ends, and returns the directory.
func Mount(t testing.TB, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Logf("smalldisk: mount a %d-byte tmpfs on %s: %v", size, dir, err)
		t.Skip(SkipMessage)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("smalldisk: unmount %s: %v", dir, err)
		}
	})
	return dir
}
