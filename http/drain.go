package http

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Two things dropped connections at a shutdown under load, though the
// client's connect had succeeded. Closing a listening socket resets every
// connection the kernel accepted for it that the server had not yet
// taken. And net/http closes, without a word, a connection whose request
// it reads once its own Shutdown has begun. So the shutdown first stops
// accepting in its own way: it takes what is waiting on the socket, until
// none has come for drainQuiet (drainMax at most), then closes it; every
// request meanwhile is answered 503 with "Connection: close"; and only
// when no accepted connection is still to be answered (one that has sent
// nothing is waited for newConnWait) does net/http's Shutdown begin. All
// of it within the grace.
const (
	drainQuiet  = 20 * time.Millisecond
	drainMax    = 500 * time.Millisecond
	newConnWait = time.Second
	drainPoll   = 5 * time.Millisecond
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
	case http.StateNew:
		cs.m[c] = connState{st, time.Now()}
	default:
		cs.m[c] = connState{st, cs.m[c].since}
	}
}

// answered reports whether every connection has had its answer: none is
// reading or answering a request, and none accepted within newConnWait
// is still to send one.
func (cs *connStates) answered(now time.Time) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, st := range cs.m {
		if st.state == http.StateActive || st.state == http.StateNew && now.Sub(st.since) < newConnWait {
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
	for {
		done := s.conns.answered(time.Now())
		for _, l := range lns {
			done = done && l.closed.Load()
		}
		if done {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
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
	until   time.Time // the drain's end; only Accept's goroutine uses it
}

// Close begins the drain: it wakes the Accept in progress, which then
// takes what is waiting and closes the socket. It does not block: the
// server holds its lock while it closes its listeners.
func (l *drainListener) Close() error {
	if l.closing.Swap(true) {
		return nil
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
			if next := now.Add(drainQuiet); !l.until.IsZero() {
				if next.After(l.until) {
					next = l.until
				}
				l.d.SetDeadline(next)
			}
			return c, nil
		}
		// The first deadline is Close's own, which begins the drain; a
		// later one is a quiet drainQuiet, or the drain's end.
		if !errors.Is(err, os.ErrDeadlineExceeded) || !l.until.IsZero() {
			l.closeNow()
			return nil, net.ErrClosed
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
