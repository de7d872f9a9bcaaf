//go:build !unix

package sqlite

// freeBytes is unknown here: I/O errors are reported as they are.
func freeBytes(string) (uint64, bool) { return 0, false }
