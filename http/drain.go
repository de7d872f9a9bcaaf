package http

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Two things dropped connections at a shutdown under load, though the
// client's connect had succeeded. Closing a listening socket resets every
// connection the kernel accepted for it that the server had not yet
// taken. And net/http closes, without a word, a connection whose request
// it reads once its own Shutdown has begun. So the shutdown first stops
// accepting in its own way: on Linux a socket filter stops new handshakes
// (stopHandshakes); then it takes what is waiting on the socket, until
// none has come for drainQuiet (drainMax at most, for a socket that takes
// no filter and keeps receiving), and closes it; every request meanwhile
// is answered 503 with "Connection: close", once the socket is closed
// (see awaitClosed); and only when no accepted
// connection is still to be answered (one that has sent nothing is
// waited for newConnWait) does net/http's Shutdown begin. All of it
// within the grace.
//
// net/http's Shutdown closes every idle keep-alive connection at once. A
// connection that went idle a moment ago (a stream that just ended, a
// response just read) is the one its client is about to send on: closed
// under that request, it is reset. So the shutdown also waits until no
// connection has gone idle within idleQuiet; a request sent meanwhile on
// one is answered 503 with "Connection: close", and the connection ends
// cleanly.
const (
	drainQuiet  = 20 * time.Millisecond
	drainMax    = 500 * time.Millisecond
	newConnWait = time.Second
	drainPoll   = 5 * time.Millisecond
	sweepWait   = time.Millisecond
	idleQuiet   = 100 * time.Millisecond
)

// connStates follows the server's connections (http.Server.ConnState).
type connStates struct {
	mu sync.Mutex
	m  map[net.Conn]connState
}

type connState struct {
	state http.ConnState
	since time.Time
}

func (cs *connStates) track(c net.Conn, st http.ConnState) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.m == nil {
		cs.m = map[net.Conn]connState{}
	}
	switch st {
	case http.StateClosed, http.StateHijacked:
		delete(cs.m, c)
	case http.StateNew, http.StateIdle:
		cs.m[c] = connState{st, time.Now()}
	default:
		cs.m[c] = connState{st, cs.m[c].since}
	}
}

// answered reports whether every connection has had its answer: none is
// reading or answering a request, none accepted within newConnWait is
// still to send one, and none went idle within idleQuiet, when its client
// may be sending the next.
func (cs *connStates) answered(now time.Time) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, st := range cs.m {
		switch {
		case st.state == http.StateActive,
			st.state == http.StateNew && now.Sub(st.since) < newConnWait,
			st.state == http.StateIdle && now.Sub(st.since) < idleQuiet:
			return false
		}
	}
	return true
}

// stopAccepting closes the server's listeners, each after taking what
// waits on it, and waits until every connection accepted has been
// answered, or ctx ends.
func (s *Server) stopAccepting(ctx context.Context) {
	s.mu.Lock()
	lns := s.listeners
	s.mu.Unlock()
	for _, l := range lns {
		l.Close()
	}
	tick := time.NewTicker(drainPoll)
	defer tick.Stop()
	wait := func(done func() bool) {
		for !done() {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}
	wait(func() bool {
		for _, l := range lns {
			if !l.closed.Load() {
				return false
			}
		}
		return true
	})
	s.closeOnce.Do(func() { close(s.closed()) })
	wait(func() bool { return s.conns.answered(time.Now()) })
}

// closed is closed once the shutdown has closed the listeners.
func (s *Server) closed() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listenersClosed == nil {
		s.listenersClosed = make(chan struct{})
	}
	return s.listenersClosed
}

// awaitClosed holds the 503 of a request that arrived during the shutdown
// until the listeners are closed (drainMax at most): a client that
// retries at once cannot open a new connection meanwhile, so the queue
// the socket is closed on is empty, and no connection it accepted is
// reset.
func (s *Server) awaitClosed(r *http.Request) {
	t := time.NewTimer(drainMax + 2*drainQuiet)
	defer t.Stop()
	select {
	case <-s.closed():
	case <-t.C:
	case <-r.Context().Done():
	}
}

// deadliner is a listener whose Accept can be bounded in time
// (*net.TCPListener, *net.UnixListener).
type deadliner interface {
	SetDeadline(time.Time) error
}

// drainOnClose wraps ln so that its Close, called by the shutdown, drains
// the connections waiting to be accepted before it closes ln. A listener
// that cannot bound its Accept is returned as it is.
func (s *Server) drainOnClose(ln net.Listener) net.Listener {
	d, ok := ln.(deadliner)
	if !ok {
		return ln
	}
	l := &drainListener{Listener: ln, d: d}
	s.mu.Lock()
	s.listeners = append(s.listeners, l)
	s.mu.Unlock()
	return l
}

type drainListener struct {
	net.Listener
	d       deadliner
	closing atomic.Bool
	closed  atomic.Bool
	// until is the drain's end, and sweeping its last sweep; only
	// Accept's goroutine uses them.
	until    time.Time
	sweeping bool
}

// Close begins the drain: it wakes the Accept in progress, which then
// takes what is waiting and closes the socket. It does not block: the
// server holds its lock while it closes its listeners.
func (l *drainListener) Close() error {
	if l.closing.Swap(true) {
		return nil
	}
	if sc, ok := l.Listener.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			stopHandshakes(rc)
		}
	}
	return l.d.SetDeadline(time.Now())
}

func (l *drainListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if !l.closing.Load() {
			return c, err
		}
		if l.closed.Load() {
			if c != nil {
				c.Close()
			}
			return nil, net.ErrClosed
		}
		now := time.Now()
		if err == nil {
			// Taken while draining: the next wait is another drainQuiet.
			if next := now.Add(drainQuiet); !l.until.IsZero() && !l.sweeping {
				if next.After(l.until) {
					next = l.until
				}
				l.d.SetDeadline(next)
			}
			return c, nil
		}
		// The first deadline is Close's own, which begins the drain; a
		// later one is a quiet drainQuiet, or the drain's end, after which
		// a last short sweep takes what came meanwhile, so that the socket
		// closes on as empty a queue as can be.
		if !errors.Is(err, os.ErrDeadlineExceeded) || l.sweeping {
			l.closeNow()
			return nil, net.ErrClosed
		}
		if !l.until.IsZero() {
			l.sweeping = true
			l.d.SetDeadline(now.Add(sweepWait))
			continue
		}
		l.until = now.Add(drainMax)
		l.d.SetDeadline(now.Add(drainQuiet))
	}
}

func (l *drainListener) closeNow() {
	if !l.closed.Swap(true) {
		l.Listener.Close()
	}
}
