package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

func TestPprofAddr(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{in: "6060", want: "127.0.0.1:6060"},
		{in: ":6060", want: "127.0.0.1:6060"},
		{in: "127.0.0.1:0", want: "127.0.0.1:0"},
		{in: "[::1]:6060", want: "[::1]:6060"},
		{in: "0.0.0.0:6060", want: "0.0.0.0:6060"},
		{in: "", err: true},
		{in: "localhost:", err: true},
		{in: "a:b:c", err: true},
	}
	for _, tt := range tests {
		got, err := pprofAddr(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("pprofAddr(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// TestPprofOwnListener checks that the profiler answers on its own
// listener until the context ends, and never on the API's address.
func TestPprofOwnListener(t *testing.T) {
	base, _, closeSvc := startServiceTB(t, nil)
	defer closeSvc()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := servePprof(ctx, "127.0.0.1:0", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	get := func(url string) (int, string, error) {
		resp, err := http.Get(url)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}
	code, body, err := get("http://" + addr.String() + "/debug/pprof/")
	if err != nil || code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Fatalf("pprof index: %d %v\n%.200s", code, err, body)
	}
	code, _, err = get("http://" + addr.String() + "/debug/pprof/heap?debug=1")
	if err != nil || code != http.StatusOK {
		t.Fatalf("heap profile: %d %v", code, err)
	}
	// The command line (admin token, database password) is not served.
	if code, body, err := get("http://" + addr.String() + "/debug/pprof/cmdline"); err != nil || code != http.StatusNotFound || strings.Contains(body, "textbook-rag") || strings.Contains(body, ".test") {
		t.Errorf("cmdline: %d %v %.200q, want 404 without the command line", code, err, body)
	}
	// A name that resolves to the loopback (DNS rebinding) is refused.
	req, _ := http.NewRequest("GET", "http://"+addr.String()+"/debug/pprof/", nil)
	req.Host = "attacker.example:6060"
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign Host: %v %v, want 403", res, err)
	} else {
		res.Body.Close()
	}
	for _, host := range []string{"localhost", "[::1]:6060", "127.0.0.1"} {
		req.Host = host
		if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusOK {
			t.Errorf("Host %s: %v %v, want 200", host, res, err)
		} else {
			res.Body.Close()
		}
	}
	if code, _, err := get(base + "/debug/pprof/"); err != nil || code != http.StatusNotFound {
		t.Errorf("the API's address serves /debug/pprof/: %d %v", code, err)
	}
	cancel()
	for range 100 {
		if _, _, err = get("http://" + addr.String() + "/debug/pprof/"); err != nil {
			break
		}
	}
	if err == nil {
		t.Error("pprof still answers after its context ended")
	}
}
