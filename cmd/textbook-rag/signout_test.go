package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/textbook-rag/rag/postgres/pgtest"
)

// A sign-out outlasts a restart (R5-signout-restart): a copy of the
// signed-out cookie is refused by the next process on the same store,
// SQLite or Postgres, while a sign-in that did not sign out still works.
func TestSignOutSurvivesRestart(t *testing.T) {
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			data := t.TempDir()
			dbURL := ""
			if store == "postgres" {
				dbURL = pgtest.SchemaURL(t)
			}
			start := func() (string, func()) {
				base, _, closeFn := startServiceTB(t, func(c *Config) {
					c.Data = data
					c.DatabaseURL = dbURL
					c.AdminToken = "course-team-token"
				})
				return base, closeFn
			}
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			login := func(base string) *http.Cookie {
				t.Helper()
				res, err := client.PostForm(base+"/admin/login", url.Values{"token": {"course-team-token"}})
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if len(res.Cookies()) != 1 {
					t.Fatalf("login: %d, cookies %v", res.StatusCode, res.Cookies())
				}
				return res.Cookies()[0]
			}
			report := func(base string, c *http.Cookie) int {
				t.Helper()
				req, _ := http.NewRequest("GET", base+"/admin/report", nil)
				req.AddCookie(c)
				res, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				return res.StatusCode
			}
			base, stop := start()
			out, kept := login(base), login(base)
			copied := *out
			req, _ := http.NewRequest("POST", base+"/admin/logout", strings.NewReader(""))
			req.AddCookie(out)
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 303 {
				t.Fatalf("sign out: %d", res.StatusCode)
			}
			if code := report(base, &copied); code != 401 {
				t.Errorf("the copied cookie before the restart: %d, want 401", code)
			}
			stop()
			base, stop = start()
			defer stop()
			if code := report(base, &copied); code != 401 {
				t.Errorf("the copied cookie after a restart: %d, want 401", code)
			}
			if code := report(base, kept); code != 200 {
				t.Errorf("a sign-in that did not sign out, after a restart: %d, want 200", code)
			}
		})
	}
}
