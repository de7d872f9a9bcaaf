//go:build !linux

package smalldisk

import "testing"

// Mount skips the test: a size-limited tmpfs needs Linux.
func Mount(t testing.TB, size int) string {
	t.Skip("smalldisk: a size-limited tmpfs needs Linux")
	return ""
}
