// Package stallproxy is a TCP proxy for tests that can stop passing bytes
// on demand, the way a hung database server or a dead network path looks
// to a client: connections stay open and nothing arrives.
package stallproxy

import (
	"net"
	"sync"
)

// Proxy forwards connections from its own address to a target address.
type Proxy struct {
	addr   string
	target string

	mu      sync.Mutex
	ln      net.Listener
	stalled bool
	resume  chan struct{} // closed when a stall ends
	conns   []net.Conn
	closed  bool
}

// Start listens on 127.0.0.1 and forwards every connection to target.
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, addr: ln.Addr().String(), target: target, resume: make(chan struct{})}
	go p.accept(ln)
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.addr }

// Refuse closes every connection and stops listening, the way a database
// server that went down looks to a client: connecting is refused.
func (p *Proxy) Refuse() error {
	p.mu.Lock()
	ln, conns := p.ln, p.conns
	p.ln, p.conns = nil, nil
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	if ln == nil {
		return nil
	}
	return ln.Close()
}

// Reopen listens again on the same address after Refuse.
func (p *Proxy) Reopen() error {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go p.accept(ln)
	return nil
}

// Stall holds every byte in both directions until Resume.
func (p *Proxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stalled {
		p.stalled = true
		p.resume = make(chan struct{})
	}
}

// Resume passes bytes again, the held ones first.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stalled {
		p.stalled = false
		close(p.resume)
	}
}

// Close stops listening and closes every connection.
func (p *Proxy) Close() error {
	p.Resume()
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	return p.Refuse()
}

func (p *Proxy) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.closed || p.ln != ln {
			p.mu.Unlock()
			c.Close()
			up.Close()
			return
		}
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go p.pipe(up, c)
		go p.pipe(c, up)
	}
}

// pipe copies src to dst, waiting out stalls before each write.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.wait()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) wait() {
	p.mu.Lock()
	stalled, resume := p.stalled, p.resume
	p.mu.Unlock()
	if stalled {
		<-resume
	}
}
