//go:build unix

package datadir

import "syscall"

// openFlags open a data folder's file without following a symbolic link
// in its last element and without blocking on a FIFO: a link to /dev/zero
// or to a file elsewhere is refused, not read or written through.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
