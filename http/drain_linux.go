package http

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// stopHandshakes makes the kernel drop every packet that reaches the
// listening socket rc, with a socket filter that accepts nothing: no new
// connection completes its handshake (the client's SYN goes unanswered,
// and the close later refuses it), while those the kernel has already
// queued stay there for Accept to take. It reports whether it could.
func stopHandshakes(rc syscall.RawConn) bool {
	drop := []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: 0}}
	prog := unix.SockFprog{Len: uint16(len(drop)), Filter: &drop[0]}
	var err error
	cerr := rc.Control(func(fd uintptr) {
		err = unix.SetsockoptSockFprog(int(fd), unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &prog)
	})
	return cerr == nil && err == nil
}
