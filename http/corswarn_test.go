package http

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// corsWarnings are the logged warnings of refused origins.
func corsWarnings(t *testing.T, env *testEnv) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(env.logs.String()), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			continue
		}
		if ev["level"] == "WARN" && ev["flag"] == "--cors-origins" {
			out = append(out, ev)
		}
	}
	return out
}

// A site missing from the allow-list is warned of, naming the origin and
// the flag, once per origin per ten minutes; allowed origins and the
// server's own pages are not.
func TestRefusedOriginWarning(t *testing.T) {
	env := newEnv(t, func(c *Config) { c.AllowedOrigins = []string{"https://allowed.example"} })
	preflight := func(origin string, opts ...reqOpt) {
		t.Helper()
		opts = append(opts, header("Origin", origin), header("Access-Control-Request-Method", "POST"))
		if w := env.do("OPTIONS", "/api/chat/stream", "", opts...); w.Code != 204 {
			t.Fatalf("preflight from %s: %d", origin, w.Code)
		}
	}
	preflight("https://course.example")
	ws := corsWarnings(t, env)
	if len(ws) != 1 {
		t.Fatalf("%d warnings after a refused preflight, want 1: %s", len(ws), env.logs)
	}
	msg, _ := ws[0]["msg"].(string)
	if ws[0]["origin"] != "https://course.example" || !strings.Contains(msg, "https://course.example is not in --cors-origins") || !strings.Contains(msg, "TEXTBOOK_RAG_CORS_ORIGINS") {
		t.Errorf("warning %v", ws[0])
	}

	// The same site again, and its POST: no new warning within ten minutes.
	preflight("https://course.example")
	env.do("POST", "/api/chat", jsonBody(t, map[string]string{"question": "What is a node?"}), header("Origin", "https://course.example"))
	// Allowed, the server's own page (Origin = Host), and a path that is
	// not the API: no warning.
	preflight("https://allowed.example")
	env.do("POST", "/api/chat", jsonBody(t, map[string]string{"question": "What is a node?"}), header("Origin", "http://example.com"))
	env.do("GET", "/widget.js", "", header("Origin", "https://elsewhere.example"))
	if n := len(corsWarnings(t, env)); n != 1 {
		t.Fatalf("%d warnings, want still 1: %s", n, env.logs)
	}
	// Another site is warned of at once; the first again after ten minutes,
	// with the count of refusals in between.
	preflight("https://other.example")
	env.clock.Advance(corsWarnEvery + time.Second)
	preflight("https://course.example")
	ws = corsWarnings(t, env)
	if len(ws) != 3 || ws[1]["origin"] != "https://other.example" || ws[2]["origin"] != "https://course.example" || ws[2]["refused_since_last_warning"] != float64(2) {
		t.Errorf("warnings %v", ws)
	}
}

// The warner remembers a bounded number of origins.
func TestOriginWarnerBounded(t *testing.T) {
	var w originWarner
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range corsWarnOrigins {
		if ok, _ := w.allow(strings.Repeat("x", i), now); !ok {
			t.Fatalf("origin %d not warned of", i)
		}
	}
	if ok, _ := w.allow("one too many", now); ok || len(w.last) != corsWarnOrigins {
		t.Errorf("past the bound: warned %v, %d remembered", ok, len(w.last))
	}
	if ok, _ := w.allow("one too many", now.Add(corsWarnEvery)); !ok || len(w.last) != 1 {
		t.Errorf("after the old warnings expire: warned %v, %d remembered", ok, len(w.last))
	}
}
