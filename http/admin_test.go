package http

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/report"
)

func withReport(s *Server) {
	s.Report = &report.Source{
		History:       s.History.(*testHistory).History.(rag.ExchangeReader),
		Title:         "Test book",
		Chapters:      []report.Chapter{{ID: "chapter-1", Title: "Nodes", Path: "m/nodes"}, {ID: "chapter-9", Title: "Never quoted", Path: "m/never"}},
		ShowQuestions: true,
		DocsURL:       "/docs",
		Now:           s.Now,
	}
}

func TestAdminReport(t *testing.T) {
	env := newEnv(t, func(c *Config) { c.AdminToken = "s3cret" }, withReport)
	env.do("POST", "/api/chat", jsonBody(t, map[string]string{"question": "What is a node?", "session_id": sid}))
	env.do("POST", "/api/chat", jsonBody(t, map[string]string{"question": "refuse banana bread", "session_id": sid}))
	bearer := header("Authorization", "Bearer s3cret")

	tests := []struct {
		name, target string
		opts         []reqOpt
		status       int
		code         string
	}{
		{"no token, a browser: the login form", "/admin/report", []reqOpt{browserAccept}, 401, ""},
		{"no token, an API client: JSON", "/admin/report", []reqOpt{header("Accept", "application/json")}, 401, "unauthorized"},
		{"no token, any type: JSON", "/admin/report", []reqOpt{header("Accept", "*/*")}, 401, "unauthorized"},
		{"wrong token", "/admin/report", []reqOpt{header("Authorization", "Bearer nope")}, 401, "unauthorized"},
		{"JSON without a token", "/admin/report?format=json", nil, 401, "unauthorized"},
		{"bad since", "/admin/report?since=7x", []reqOpt{bearer}, 400, "validation_error"},
		{"since too short", "/admin/report?since=1m", []reqOpt{bearer}, 400, "validation_error"},
		{"bad format", "/admin/report?format=pdf", []reqOpt{bearer}, 400, "validation_error"},
		{"page", "/admin/report?since=1d", []reqOpt{bearer}, 200, ""},
		{"json", "/admin/report?format=json", []reqOpt{bearer}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := env.do("GET", tt.target, "", tt.opts...)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if tt.code != "" {
				if e := decode[ErrorBody](t, w); e.Error != tt.code {
					t.Fatalf("error %+v, want %s", e, tt.code)
				}
			} else if tt.status == 401 && !strings.Contains(w.Body.String(), `name="token"`) {
				t.Fatalf("no sign-in form: %s", w.Body)
			}
			if strings.Contains(w.Body.String(), sid) {
				t.Fatalf("the report shows the session id")
			}
		})
	}
	page := env.do("GET", "/admin/report", "", bearer).Body.String()
	for _, want := range []string{"<svg", "refuse banana bread", "Never quoted", `href="/docs/m/never"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	js := decode[report.Report](t, env.do("GET", "/admin/report?format=json", "", bearer))
	if js.Totals.Questions != 2 || js.Totals.Refusals != 1 {
		t.Errorf("totals %+v", js.Totals)
	}

	// A browser signs in with the form and gets a cookie, not the token.
	form := func(token string) *http.Response {
		w := env.do("POST", "/admin/login", "", func(r *http.Request) {
			body := url.Values{"token": {token}}.Encode()
			r.Body = io.NopCloser(strings.NewReader(body))
			r.ContentLength = int64(len(body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		})
		return w.Result()
	}
	if res := form("wrong"); res.StatusCode != 401 || len(res.Cookies()) != 0 {
		t.Fatalf("wrong token: %d, cookies %v", res.StatusCode, res.Cookies())
	}
	res := form("s3cret")
	if res.StatusCode != 303 || len(res.Cookies()) != 1 {
		t.Fatalf("login: %d, cookies %v", res.StatusCode, res.Cookies())
	}
	c := res.Cookies()[0]
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || strings.Contains(c.Value, "s3cret") {
		t.Fatalf("cookie %+v", c)
	}
	if w := env.do("GET", "/admin/report", "", func(r *http.Request) { r.AddCookie(c) }); w.Code != 200 {
		t.Fatalf("with the cookie: %d", w.Code)
	}

	// Without a configured token the report is off: a browser is told
	// how to turn it on, an API client gets the JSON error.
	off := newEnv(t, nil, withReport)
	if w := off.do("GET", "/admin/report", ""); w.Code != 401 || decode[ErrorBody](t, w).Error != "unauthorized" {
		t.Fatalf("no admin token configured: %d %s", w.Code, w.Body)
	}
	w := off.do("GET", "/admin/report", "", browserAccept)
	if page := w.Body.String(); w.Code != 401 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") ||
		!strings.Contains(page, "<code>--admin-token</code>") || strings.Contains(page, `name="token"`) {
		t.Fatalf("no admin token configured, a browser: %d %s", w.Code, page)
	}
}

// browserAccept is the Accept header Chromium sends for a page.
var browserAccept = header("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8")

func TestAcceptsHTML(t *testing.T) {
	for accept, want := range map[string]bool{
		"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8": true,
		"application/xhtml+xml":                 true,
		"":                                      false,
		"*/*":                                   false,
		"application/json":                      false,
		"application/json, text/html;q=0.5":     false,
		"text/html;q=0, application/json;q=0.1": false,
		"TEXT/HTML; charset=utf-8; q=0.9, */*":  true,
		"application/json;q=0.5, text/html;q=1": true,
	} {
		if got := acceptsHTML(accept); got != want {
			t.Errorf("acceptsHTML(%q) = %v, want %v", accept, got, want)
		}
	}
}

// An admin session ends: after AdminSessionTTL, or when it signs out, and
// a copy of its cookie ends with it. Its cookie is Secure when the request
// came over TLS, directly or as a trusted proxy says.
func TestAdminSessionEnds(t *testing.T) {
	env := newEnv(t, func(c *Config) { c.AdminToken = "s3cret"; c.TrustProxy = true }, withReport)
	login := func(opts ...reqOpt) *http.Cookie {
		t.Helper()
		w := env.do("POST", "/admin/login", "", append([]reqOpt{func(r *http.Request) {
			body := url.Values{"token": {"s3cret"}}.Encode()
			r.Body = io.NopCloser(strings.NewReader(body))
			r.ContentLength = int64(len(body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}}, opts...)...)
		res := w.Result()
		if res.StatusCode != 303 || len(res.Cookies()) != 1 {
			t.Fatalf("login: %d, cookies %v", res.StatusCode, res.Cookies())
		}
		return res.Cookies()[0]
	}
	report := func(c *http.Cookie) int {
		return env.do("GET", "/admin/report", "", func(r *http.Request) { r.AddCookie(c) }).Code
	}

	c := login()
	if c.Secure || c.MaxAge != int(AdminSessionTTL/time.Second) {
		t.Errorf("plain HTTP login: Secure %v, Max-Age %d", c.Secure, c.MaxAge)
	}
	if code := report(c); code != 200 {
		t.Fatalf("a fresh session: %d", code)
	}
	env.clock.Advance(AdminSessionTTL - time.Minute)
	if code := report(c); code != 200 {
		t.Errorf("a session near its end: %d", code)
	}
	env.clock.Advance(2 * time.Minute)
	if code := report(c); code != 401 {
		t.Errorf("an expired session: %d, want 401", code)
	}

	// Signing out ends the session, copies of its cookie included.
	c = login()
	copied := *c
	w := env.do("POST", "/admin/logout", "", func(r *http.Request) { r.AddCookie(c) })
	if res := w.Result(); res.StatusCode != 303 || len(res.Cookies()) != 1 || res.Cookies()[0].MaxAge >= 0 {
		t.Errorf("sign out: %d, cookies %v", res.StatusCode, res.Cookies())
	}
	if code := report(&copied); code != 401 {
		t.Errorf("a copied cookie after sign-out: %d, want 401", code)
	}
	if code := report(login()); code != 200 {
		t.Errorf("signing in again: %d", code)
	}

	// A forged or extended cookie is refused.
	parts := strings.SplitN(login().Value, ".", 3)
	forged := &http.Cookie{Name: c.Name, Value: "9999999999." + parts[1] + "." + parts[2]}
	if code := report(forged); code != 401 {
		t.Errorf("an extended cookie: %d, want 401", code)
	}

	// Secure behind the trusted TLS proxy, or over TLS itself.
	if c := login(header("X-Forwarded-Proto", "https")); !c.Secure {
		t.Errorf("behind a TLS proxy: cookie not Secure")
	}
	if c := login(func(r *http.Request) { r.TLS = &tls.ConnectionState{} }); !c.Secure {
		t.Errorf("over TLS: cookie not Secure")
	}
	untrusted := newEnv(t, func(c *Config) { c.AdminToken = "s3cret" }, withReport)
	w = untrusted.do("POST", "/admin/login", "", header("X-Forwarded-Proto", "https"), func(r *http.Request) {
		body := url.Values{"token": {"s3cret"}}.Encode()
		r.Body = io.NopCloser(strings.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	})
	if cs := w.Result().Cookies(); len(cs) != 1 || cs[0].Secure {
		t.Errorf("X-Forwarded-Proto without --trust-proxy: cookies %v, want one, not Secure", cs)
	}
}

// A login form over its limit is 413 payload_too_large, not a 400.
func TestLoginFormTooLarge(t *testing.T) {
	env := newEnv(t, func(c *Config) { c.AdminToken = "s3cret" }, withReport)
	w := env.do("POST", "/admin/login", "", func(r *http.Request) {
		body := url.Values{"token": {strings.Repeat("x", 8<<10)}}.Encode()
		r.Body = io.NopCloser(strings.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	})
	if w.Code != http.StatusRequestEntityTooLarge || decode[ErrorBody](t, w).Error != ETOOLARGE {
		t.Errorf("oversized login form: %d %s, want 413 payload_too_large", w.Code, w.Body)
	}
}
