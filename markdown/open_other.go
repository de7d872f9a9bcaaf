//go:build !unix

package markdown

// openFlags are none where O_NONBLOCK and O_NOFOLLOW do not exist.
const openFlags = 0
