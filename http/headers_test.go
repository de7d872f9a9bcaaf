package http

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// Request headers over the limit get the API's JSON error body (431
// headers_too_large), as every other bad request does, not Go's
// plain-text reply; headers under it are served as usual.
func TestOversizedHeaders(t *testing.T) {
	env := newEnv(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := env.srv.Open(ln); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.srv.Shutdown(context.Background()) })
	for _, tc := range []struct {
		name   string
		header int // bytes of one header's value
		want   int
	}{
		{"under the limit", 32 << 10, http.StatusOK},
		{"over the limit", 80 << 10, http.StatusRequestHeaderFieldsTooLarge},
		{"far over the limit", 2 << 20, http.StatusRequestHeaderFieldsTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			go fmt.Fprintf(c, "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", tc.header))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" && !strings.HasPrefix(ct, "application/json;") {
				t.Errorf("Content-Type %q, want JSON: %s", ct, body)
			}
			if tc.want == http.StatusOK {
				return
			}
			var e ErrorBody
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if e.Error != "headers_too_large" || e.Details["max_bytes"] != float64(64<<10) {
				t.Errorf("body %+v, want headers_too_large with max_bytes", e)
			}
			if resp.Header.Get("X-Request-ID") == "" {
				t.Error("no X-Request-ID")
			}
		})
	}
}

// An Expect header the server cannot meet gets the API's JSON error body
// (417 expectation_failed), not Go's empty reply; 100-continue is met.
func TestExpectationFailed(t *testing.T) {
	env := newEnv(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := env.srv.Open(ln); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.srv.Shutdown(context.Background()) })
	for _, tc := range []struct {
		expect string
		want   int
	}{
		{"100-continue", http.StatusOK},
		{"something-else", http.StatusExpectationFailed},
	} {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		body := `{"question":"How do nodes talk?","session_id":"` + sid + `"}`
		fmt.Fprintf(c, "POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: %s\r\n\r\n%s", len(body), tc.expect, body)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err == nil && resp.StatusCode == http.StatusContinue {
			resp, err = http.ReadResponse(br, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		c.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Expect: %s: status %d, want %d: %s", tc.expect, resp.StatusCode, tc.want, data)
			continue
		}
		if tc.want == http.StatusOK {
			continue
		}
		var e ErrorBody
		if err := json.Unmarshal(data, &e); err != nil || e.Error != "expectation_failed" || e.Message == "" || resp.Header.Get("X-Request-ID") == "" {
			t.Errorf("Expect: %s: body %q (%v), headers %v, want expectation_failed", tc.expect, data, err, resp.Header)
		}
	}
}
