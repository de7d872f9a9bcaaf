package http

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A keep-alive connection whose stream ends during a shutdown is not
// closed under the client's next request: that request, sent a moment
// later on the same connection, is answered (503, Connection: close)
// rather than reset or met with EOF.
func TestShutdownAnswersTheNextRequestOnAnIdleConnection(t *testing.T) {
	tu := stuckTutor{asked: make(chan struct{}, 1), release: make(chan struct{})}
	env := newEnv(t, func(c *Config) { c.ShutdownTimeout = 5 * time.Second }, func(s *Server) { s.Tutor = tu })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := env.srv.Open(ln); err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := jsonBody(t, map[string]string{"question": "How do nodes talk?", "session_id": sid})
	req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/api/chat/stream", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	<-tu.asked
	shut := make(chan error, 1)
	go func() { shut <- env.srv.Shutdown(context.Background()) }()
	time.Sleep(600 * time.Millisecond) // the listener's drain is over
	close(tu.release)
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		t.Fatalf("the stream: %v", err)
	}
	res.Body.Close()
	// A client's next request on its pooled connection, 30 ms later.
	time.Sleep(30 * time.Millisecond)
	next, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/health", nil)
	if err := next.Write(conn); err != nil {
		t.Fatalf("the next request could not be sent: %v", err)
	}
	res, err = http.ReadResponse(br, next)
	if err != nil {
		t.Fatalf("the next request on the idle connection got no answer: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != 503 || !res.Close {
		t.Errorf("the next request: %d, close %v; want 503 with Connection: close", res.StatusCode, res.Close)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown = %v", err)
	}
}
