//go:build !unix

package datadir

// openFlags are none where O_NOFOLLOW and O_NONBLOCK do not exist: ReadFile
// still refuses what Lstat says is no regular file.
const openFlags = 0
