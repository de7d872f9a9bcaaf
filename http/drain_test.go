package http

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// gatedListener takes no connection until the server begins to close it,
// so the connections a client makes wait in the kernel's queue, as they
// do under load when the shutdown begins.
type gatedListener struct {
	*net.TCPListener
	gate chan struct{}
	once sync.Once
}

func (l *gatedListener) open() { l.once.Do(func() { close(l.gate) }) }

func (l *gatedListener) Accept() (net.Conn, error) {
	<-l.gate
	return l.TCPListener.Accept()
}

func (l *gatedListener) SetDeadline(t time.Time) error {
	l.open()
	return l.TCPListener.SetDeadline(t)
}

func (l *gatedListener) Close() error {
	l.open()
	return l.TCPListener.Close()
}

// Every connection the kernel accepted before the shutdown gets an
// answer, a 503 with the error body, rather than a reset; and a request
// that arrives during the grace is answered 503 at once. The listener is
// closed long before the grace ends.
func TestShutdownAnswersConnectionsWaiting(t *testing.T) {
	env := newEnv(t, func(c *Config) { c.ShutdownTimeout = 5 * time.Second })
	tcp, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	ln := &gatedListener{TCPListener: tcp, gate: make(chan struct{})}
	if err := env.srv.Open(ln); err != nil {
		t.Fatal(err)
	}
	const n = 20
	var conns []net.Conn
	for i := range n {
		c, err := net.Dial("tcp", tcp.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET /health HTTP/1.1\r\nHost: x\r\nX-Request-ID: waiting-%d\r\n\r\n", i)
		conns = append(conns, c)
	}
	start := time.Now()
	if err := env.srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Shutdown took %s, want the listener closed well within the grace", took)
	}
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Errorf("connection %d: no answer: %v", i, err)
			continue
		}
		var body strings.Builder
		_, _ = bufio.NewReader(res.Body).WriteTo(&body)
		res.Body.Close()
		if res.StatusCode != 503 || !strings.Contains(body.String(), `"unavailable"`) || res.Header.Get("Retry-After") == "" {
			t.Errorf("connection %d: %d %q, want 503 unavailable", i, res.StatusCode, body.String())
		}
	}
	if _, err := net.DialTimeout("tcp", tcp.Addr().String(), time.Second); err == nil {
		t.Errorf("the listener still accepts after Shutdown")
	}
}
