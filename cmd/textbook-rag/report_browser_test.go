package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/web/browsertest"
)

// TestBrowserFeedbackAndReport drives Chromium against the real server
// and its SQLite history, at 1280×900 and 390×844: a reader rates an
// answer "not helpful" with a comment, the rating survives a reload, a
// refusal offers no rating, and the course team signs in to
// /admin/report and sees it. Screenshots: feedback-*, report-*.
func TestBrowserFeedbackAndReport(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	if browsertest.ChromePath() == "" {
		t.Skip(browsertest.SkipMessage)
	}
	for _, vp := range []browsertest.Viewport{browsertest.Desktop, browsertest.Phone} {
		t.Run(vp.Name, func(t *testing.T) {
			base, m := startService(t, func(c *Config) { c.AdminToken = "course-team-token" })
			// A history for the report: answers, and refusals of two kinds.
			for _, q := range []string{
				"What is a ROS 2 topic?", "What is a ROS 2 node?", "What is a URDF joint?",
				"How do I bake banana bread?", "Best banana bread recipe?", "Is banana bread healthy?",
				"How do I do PID tuning with Ziegler-Nichols for my arm?", "What is a Kalman filter?",
			} {
				postJSON(t, base+"/api/chat", map[string]string{"question": q})
			}
			dir := browsertest.ArtifactsDir(t)
			b := browsertest.NewBrowser(t, dir)
			b.SetViewport(vp)

			b.Navigate(base + "/")
			b.OpenPanel()
			b.Ask("How does a LiDAR measure distance?")
			last := `Array.from(R.querySelectorAll(".msg.assistant")).pop()`
			b.WaitFor("the rating buttons", last+`.querySelector(".feedback .rate")`)
			b.ClickAt("Not helpful", last+`.querySelector('.rate[data-rating="not_helpful"]')`)
			b.WaitFor("the comment box", last+`.querySelector(".feedback textarea") && `+last+`.querySelector('.rate[data-rating="not_helpful"]').getAttribute("aria-pressed") === "true"`)
			b.Exec(last + `.querySelector(".feedback textarea").value = "It does not show a subscriber."`)
			b.ClickAt("Send", last+`.querySelector(".feedback form button")`)
			b.WaitFor("the thanks", last+`.querySelector(".fb-status").textContent.includes("comment was sent")`)
			b.Screenshot("feedback-" + vp.Name)

			fb := storedFeedback(t, m)
			if fb == nil || fb.Rating != rag.NotHelpful || fb.Comment != "It does not show a subscriber." {
				t.Fatalf("stored feedback %+v", fb)
			}
			// Changeable: one tap on "Helpful" replaces the rating, comment kept.
			b.ClickAt("Helpful", last+`.querySelector('.rate[data-rating="helpful"]')`)
			b.WaitFor("helpful pressed", last+`.querySelector('.rate[data-rating="helpful"]').getAttribute("aria-pressed") === "true"`)
			if fb := storedFeedback(t, m); fb == nil || fb.Rating != rag.Helpful {
				t.Fatalf("changed feedback %+v", fb)
			}

			// A refusal cannot be rated.
			b.Ask("How do I bake banana bread?")
			if Eval(b, last+`.classList.contains("refusal") && !`+last+`.querySelector(".feedback")`) != true {
				t.Errorf("a refusal offers a rating")
			}
			// After a reload the answer shows the reader's rating.
			b.Navigate(base + "/")
			b.OpenPanel()
			b.WaitFor("the rating after a reload", `R.querySelector('.rate[data-rating="helpful"][aria-pressed="true"]')`)

			// The course team's page: sign in, then the report.
			b.Do(chromedp.Navigate(base + "/admin/report?since=7d"))
			b.WaitFor("the sign-in form", `document.querySelector("input[name=token]")`)
			b.Exec(`document.querySelector("input[name=token]").value = "course-team-token"`)
			b.Exec(`document.querySelector("form").submit()`)
			b.WaitFor("the report", `document.querySelector("svg rect") && document.querySelector(".topics li")`)
			if w := Eval(b, `document.documentElement.scrollWidth - window.innerWidth`); w != float64(0) {
				t.Errorf("the report is %v px wider than the %s window", w, vp.Name)
			}
			text := Eval(b, `document.body.innerText`).(string)
			for _, want := range []string{"banana bread", "Chapters never quoted", "Sections most often quoted"} {
				if !strings.Contains(text, want) {
					t.Errorf("the report lacks %q", want)
				}
			}
			b.Screenshot("report-" + vp.Name)
			b.Exec(`window.scrollTo(0, document.body.scrollHeight)`)
			b.Screenshot("report-end-" + vp.Name)
			if ex := b.Exceptions(); len(ex) > 0 {
				t.Errorf("JavaScript exceptions: %v", ex)
			}
		})
	}
}

// Eval is browsertest.Eval for any JSON value.
func Eval(b *browsertest.Browser, js string) any { return browsertest.Eval[any](b, js) }

// storedFeedback is the feedback on the first rated answer in the store.
func storedFeedback(t *testing.T, m *Main) *rag.Feedback {
	t.Helper()
	xr := m.History.(rag.ExchangeReader)
	xs, _, err := xr.ExchangePage(context.Background(), time.Now().Add(-time.Hour), time.Now().Add(time.Hour), rag.ExchangeCursor{}, 1000)
	if err != nil {
		t.Fatal(fmt.Errorf("read exchanges: %w", err))
	}
	for _, x := range xs {
		if x.Feedback != nil {
			return x.Feedback
		}
	}
	return nil
}

// /admin/report opened in a browser without a token is a page, never raw
// JSON: the sign-in form when the tutor has an admin token, and how to
// turn the report on when it has none. Screenshots: signin-*.
func TestBrowserReportSignIn(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	if browsertest.ChromePath() == "" {
		t.Skip(browsertest.SkipMessage)
	}
	withToken, _ := startService(t, func(c *Config) { c.AdminToken = "course-team-token" })
	without, _ := startService(t, nil)
	for _, vp := range []browsertest.Viewport{browsertest.Desktop, browsertest.Phone} {
		t.Run(vp.Name, func(t *testing.T) {
			b := browsertest.NewBrowser(t, browsertest.ArtifactsDir(t))
			b.SetViewport(vp)
			for _, tc := range []struct {
				name, base, ready string
				want              []string
			}{
				{"signin-form", withToken, `document.querySelector("input[name=token]")`, []string{"Course report", "Admin token", "Open the report"}},
				{"signin-off", without, `document.querySelector("main.box")`, []string{"The course report is off", "--admin-token", "TEXTBOOK_RAG_ADMIN_TOKEN"}},
			} {
				b.Do(chromedp.Navigate(tc.base + "/admin/report"))
				b.WaitFor("the sign-in page", tc.ready)
				text := Eval(b, `document.body.innerText`).(string)
				for _, w := range tc.want {
					if !strings.Contains(text, w) {
						t.Errorf("%s: the page lacks %q:\n%s", tc.name, w, text)
					}
				}
				if strings.Contains(text, `"error"`) {
					t.Errorf("%s: the browser got JSON: %s", tc.name, text)
				}
				if w := Eval(b, `document.documentElement.scrollWidth - window.innerWidth`); w != float64(0) {
					t.Errorf("%s: the page is %v px wider than the %s window", tc.name, w, vp.Name)
				}
				b.Screenshot(tc.name + "-" + vp.Name)
			}
		})
	}
}
