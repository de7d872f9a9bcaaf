//go:build unix

package markdown

import "syscall"

// openFlags open a book file without blocking: a FIFO opened for reading
// would otherwise wait for a writer forever (and ignore SIGTERM).
// O_NOFOLLOW is for the last path element; os.Root resolves links itself
// and keeps them inside the book.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
