package main

import (
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/textbook-rag/rag/web/browsertest"
)

// lockedBuffer collects a server's log lines from its goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// courseSite serves a course team's page on an origin of its own, with
// the widget of the tutor at api.
func courseSite(t *testing.T, api string) *httptest.Server {
	t.Helper()
	page := fmt.Sprintf(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Course site</title>
<style>body{font:17px/1.6 system-ui,sans-serif;max-width:720px;margin:0 auto;padding:24px}</style></head>
<body><article><h1>Course site</h1><p>A course team's own page, on its own address, with the tutor's widget added by a script tag.</p></article>
<script src="%[1]s/widget.js" data-api="%[1]s" data-book-url="%[1]s/docs"></script></body></html>`, html.EscapeString(api))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A site missing from --cors-origins: the reader is told the site is not
// allowed (naming the flag) rather than to check the connection, and the
// server warns of the origin once. A tutor that is not running at all is
// a connection problem, which also names the other cause. Screenshots:
// cors-refused-*, cors-unreachable-*.
func TestBrowserSiteNotAllowed(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	if browsertest.ChromePath() == "" {
		t.Skip(browsertest.SkipMessage)
	}
	logs := &lockedBuffer{}
	base, _, stop := startServiceLogging(t, nil, logs)
	t.Cleanup(stop)
	site := courseSite(t, base)

	// A port nothing listens on, for the tutor that is down.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	// The page of the unreachable tutor's widget: served by the running
	// tutor's widget script, pointed at the closed port.
	downPage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Course site</title></head>
<body style="font:17px/1.6 system-ui,sans-serif;max-width:720px;margin:0 auto;padding:24px"><article><h1>Course site</h1><p>The tutor behind this page is not running.</p></article>
<script src="%s/widget.js" data-api="%s"></script></body></html>`, base, down)
	}))
	t.Cleanup(downPage.Close)

	for _, vp := range []browsertest.Viewport{browsertest.Desktop, browsertest.Phone} {
		t.Run(vp.Name, func(t *testing.T) {
			b := browsertest.NewBrowser(t, browsertest.ArtifactsDir(t))
			b.SetViewport(vp)
			for _, tc := range []struct {
				name, url string
				want      []string
				not       string
			}{
				{"cors-refused", site.URL + "/", []string{"does not allow this site (" + site.URL + ")", "--cors-origins", "your connection is not the problem"}, "Could not reach"},
				{"cors-unreachable", downPage.URL + "/", []string{"Could not reach the tutor. Check your connection", "may not allow this site (" + downPage.URL + ")", "--cors-origins"}, "does not allow"},
			} {
				b.Navigate(tc.url)
				b.OpenPanel()
				if got := browsertest.Eval[string](b, `R.querySelector(".title h2").textContent`); got != "Physical AI & Humanoid Robotics" {
					t.Errorf("%s: the widget's header says %q, not the course's name", tc.name, got)
				}
				b.Exec(`R.querySelector(".input").focus()`)
				b.Keys("How does a LiDAR measure distance?\r")
				b.WaitFor("the error note", `R.querySelector(".note.error")`)
				got := browsertest.Eval[string](b, `R.querySelector(".note.error").textContent`)
				for _, w := range tc.want {
					if !strings.Contains(got, w) {
						t.Errorf("%s: the message %q lacks %q", tc.name, got, w)
					}
				}
				if strings.Contains(got, tc.not) {
					t.Errorf("%s: the message %q names the wrong cause first", tc.name, got)
				}
				if v := browsertest.Eval[string](b, `R.querySelector(".input").value`); v != "How does a LiDAR measure distance?" {
					t.Errorf("%s: the question box holds %q after the error", tc.name, v)
				}
				b.Screenshot(tc.name + "-" + vp.Name)
			}
			if ex := b.Exceptions(); len(ex) > 0 {
				t.Errorf("JavaScript exceptions: %v", ex)
			}
		})
	}
	// The server warned of the site, naming it and the flag, once for the
	// two viewports' requests (rate-limited).
	var warned int
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `"level":"WARN"`) && strings.Contains(line, `"origin":"`+site.URL+`"`) && strings.Contains(line, "--cors-origins") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("the server logged %d warnings of %s, want 1:\n%s", warned, site.URL, logs)
	}
}
