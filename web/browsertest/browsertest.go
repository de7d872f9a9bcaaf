// Package browsertest drives the reader's page and the chat widget in a
// real Chromium with chromedp. Run works against any base URL that serves
// the web package's pages and the chat API at the same origin: the
// in-package stand-in of web's tests, or the real server.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	cdp "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Config holds the questions the scenarios ask. The defaults suit the
// stand-in API; against the real server pick questions the book answers.
type Config struct {
	Question          string // scenario 1: answered from the book, with sources
	SelectionQuestion string // scenario 2: asked about a selected paragraph
	OffTopicQuestion  string // scenario 3: must be refused
	StartPath         string // the page the scenarios start on
	Viewport          Viewport
	Prefix            string // put before every screenshot's name
}

// Viewport is a window size to emulate.
type Viewport struct {
	Name          string // "desktop", "phone"
	Width, Height int64
	Mobile        bool // a phone: viewport meta tag, overlay scrollbars, touch-sized layout
}

// The two sizes the reader's side is checked at.
var (
	Desktop = Viewport{Name: "desktop", Width: 1280, Height: 900}
	Phone   = Viewport{Name: "phone", Width: 390, Height: 844, Mobile: true}
)

// RefusalLabels is the label the widget shows above each refusal reason's
// message.
var RefusalLabels = map[string]string{
	"empty_retrieval":            "Not in the textbook",
	"insufficient_context":       "Not enough in the textbook to be sure",
	"out_of_scope":               "Outside this course",
	"selected_text_insufficient": "Not in your selection",
}

// DefaultConfig is the configuration Run uses.
func DefaultConfig() Config {
	return Config{
		Question:          "What does a publisher do?",
		SelectionQuestion: "Explain this passage in simpler words.",
		OffTopicQuestion:  "How do I bake banana bread?",
		StartPath:         "/",
		Viewport:          Desktop,
	}
}

// SkipMessage is the reason every browser test skips with when there is
// no browser: one message, so the test summary shows one line for them.
const SkipMessage = "browser tests skipped: no chromium, chromium-browser or google-chrome on PATH (apt-get install chromium)"

// ChromePath finds a Chromium or Chrome binary, "" when there is none.
func ChromePath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// ArtifactsDir is where screenshots go: $TEXTBOOK_RAG_ARTIFACTS when set,
// else a test temporary directory.
func ArtifactsDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("TEXTBOOK_RAG_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// Browser is one headless Chromium tab.
type Browser struct {
	t   *testing.T
	ctx context.Context
	dir string

	prefix string // of screenshot names

	mu         sync.Mutex
	exceptions []string
}

// NewBrowser starts a headless Chromium with a fresh profile, or skips the
// test when no browser is installed. Screenshots are saved into dir.
func NewBrowser(t *testing.T, dir string) *Browser {
	t.Helper()
	path := ChromePath()
	if path == "" {
		t.Skip(SkipMessage)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 860),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &Browser{t: t, dir: dir}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg := ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				msg += " " + ev.ExceptionDetails.Exception.Description
			}
			b.mu.Lock()
			b.exceptions = append(b.exceptions, msg)
			b.mu.Unlock()
		}
	}))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatalf("start %s: %v", path, err)
	}
	b.ctx = ctx
	return b
}

// SetViewport emulates a window of v's size from now on.
func (b *Browser) SetViewport(v Viewport) {
	b.t.Helper()
	b.Do(func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: v.Width, Height: v.Height, DeviceScaleFactor: 1, Mobile: v.Mobile,
		})
		return chromedp.Void{}, err
	})
}

// Exceptions returns the page's uncaught JavaScript exceptions so far.
func (b *Browser) Exceptions() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.exceptions...)
}

// Do runs chromedp steps with a time limit.
func (b *Browser) Do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

// Eval evaluates JavaScript in the page; the widget's shadow root is R.
func Eval[T any](b *Browser, js string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](withRoot(js), chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// WaitFor waits until the JavaScript expression (with R bound) is truthy.
// It polls across page loads: an evaluation that fails because the page
// is being replaced counts as "not yet".
func (b *Browser) WaitFor(what, js string) {
	b.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!(`+withRoot(js)+`)`))
		cancel()
		if err == nil && ok {
			return
		}
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	b.Screenshot("failed-" + slug(what))
	b.t.Fatalf("waiting for %s: not true after 15s (last error: %v)", what, last)
}

func withRoot(js string) string {
	return `(() => { const H = document.getElementById("textbook-rag-widget"); const R = H && H.shadowRoot; return (` + js + `); })()`
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	return strings.Trim(nonWord.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// Screenshot saves the viewport as dir/name.png.
func (b *Browser) Screenshot(name string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return ""
	}
	p := filepath.Join(b.dir, b.prefix+name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.t.Errorf("save screenshot: %v", err)
	}
	return p
}

// Navigate loads url and waits for the widget to mount.
func (b *Browser) Navigate(url string) {
	b.t.Helper()
	b.Do(chromedp.Navigate(url))
	b.WaitFor("the widget on "+url, `R && R.querySelector(".launcher")`)
}

// ClickAt clicks the centre of the element the JS expression returns.
func (b *Browser) ClickAt(what, js string) {
	b.t.Helper()
	r := Eval[[]float64](b, `(() => { const e = `+js+`; if (!e) return null; const r = e.getBoundingClientRect(); return [r.left + r.width/2, r.top + r.height/2]; })()`)
	if len(r) != 2 {
		b.t.Fatalf("click %s: element not found", what)
	}
	b.Do(chromedp.MouseClickXY(r[0], r[1]))
}

// OpenPanel opens the chat panel with the launcher button unless it is open.
func (b *Browser) OpenPanel() {
	b.t.Helper()
	if Eval[bool](b, `!R.querySelector(".panel").hidden`) {
		return
	}
	b.ClickAt("the launcher", `R.querySelector(".launcher")`)
	b.WaitFor("the panel to open", `!R.querySelector(".panel").hidden`)
}

// Ask types a question into the open panel and presses Enter; it waits
// until the answer (or refusal) is complete and returns how many answers
// the conversation shows.
func (b *Browser) Ask(question string) int {
	b.t.Helper()
	before := Eval[int](b, `R.querySelectorAll(".msg.assistant:not(.pending)").length`)
	b.Do(chromedp.Evaluate[chromedp.Void](withRoot(`R.querySelector(".input").focus()`)))
	b.Do(chromedp.KeyEvent(question), chromedp.KeyEvent("\r"))
	b.WaitFor("the answer to "+question, fmt.Sprintf(`R.querySelectorAll(".msg.assistant:not(.pending)").length > %d && R.querySelector(".panel").getAttribute("aria-busy") !== "true"`, before))
	return before + 1
}

// lastAnswer describes the newest answer in the panel.
type lastAnswer struct {
	Text       string   `json:"text"`
	Refusal    bool     `json:"refusal"`
	Reason     string   `json:"reason"`
	Links      []string `json:"links"`
	LinkTexts  []string `json:"linkTexts"`
	Background string   `json:"background"`
	Border     string   `json:"border"`
	Lists      int      `json:"lists"`
}

func (b *Browser) lastAnswer() lastAnswer {
	return Eval[lastAnswer](b, `(() => {
		const all = R.querySelectorAll(".msg.assistant");
		const m = all[all.length - 1];
		const cs = getComputedStyle(m);
		return {
			text: m.innerText, refusal: m.classList.contains("refusal"), reason: m.getAttribute("data-reason") || "",
			links: Array.from(m.querySelectorAll(".sources a")).map(a => a.href),
			linkTexts: Array.from(m.querySelectorAll(".sources a")).map(a => a.textContent),
			background: cs.backgroundColor, border: cs.borderTopStyle + " " + cs.borderTopColor,
			lists: m.querySelectorAll(".body ul, .body ol").length,
		};
	})()`)
}

var sourceLink = regexp.MustCompile(`/docs/(?:[^/#?]+/)?[^/#?]+#[^/#?]+$`)

// RunConfig drives the widget on baseURL's pages: (1) ask a question and
// follow its source link to the anchor, (2) ask about a selected
// paragraph, (3) get an off-topic question refused, (4) reload and see the
// conversation again. Screenshots of each state go into dir.
func RunConfig(t *testing.T, baseURL, dir string, cfg Config) {
	t.Helper()
	if dir == "" {
		dir = ArtifactsDir(t)
	}
	baseURL = strings.TrimRight(baseURL, "/")
	b := NewBrowser(t, dir)
	if cfg.Viewport.Width > 0 {
		b.SetViewport(cfg.Viewport)
	}
	b.prefix = cfg.Prefix
	start := baseURL + cfg.StartPath

	// (1) Ask a question, get an answer with a source link.
	b.Navigate(start)
	b.Screenshot("01-page")
	b.OpenPanel()
	if !Eval[bool](b, `H === document.activeElement && R.activeElement === R.querySelector(".input")`) {
		t.Error("opening the panel did not move focus into the question box")
	}
	if got := Eval[string](b, `R.querySelector(".panel").getAttribute("role") + "|" + R.querySelector(".panel").getAttribute("aria-label")`); got != "dialog|Textbook tutor" {
		t.Errorf("panel role|label = %q", got)
	}
	b.Screenshot("02-panel-open")
	b.Ask(cfg.Question)
	a := b.lastAnswer()
	b.Screenshot("03-answer")
	if a.Refusal {
		t.Fatalf("scenario 1: %q was refused: %s", cfg.Question, a.Text)
	}
	if len(a.Links) == 0 {
		t.Fatalf("scenario 1: the answer has no source links: %s", a.Text)
	}
	source := a.Links[0]
	if !sourceLink.MatchString(source) {
		t.Errorf("scenario 1: source link %q does not end with /docs/<module>/<chapter>#<anchor>", source)
	}
	if a.LinkTexts[0] == "" {
		t.Error("scenario 1: source link has no text")
	}
	if live := Eval[string](b, `R.querySelector("[aria-live=polite]").textContent`); live == "" {
		b.WaitFor("the answer in the aria-live region", `R.querySelector("[aria-live=polite]").textContent !== ""`)
	}

	// Esc closes the panel and gives focus back to the launcher.
	b.Do(chromedp.KeyEvent("\x1b"))
	b.WaitFor("Esc to close the panel", `R.querySelector(".panel").hidden`)
	if !Eval[bool](b, `R.activeElement === R.querySelector(".launcher")`) {
		t.Error("Esc did not return focus to the launcher")
	}

	// (2) Select a paragraph, "Ask about this", see the chip, ask.
	selected := b.SelectParagraph()
	b.Screenshot("04-ask-about-this")
	b.ClickAt(`"Ask about this"`, `R.querySelector(".ask-selection")`)
	b.WaitFor("the selection chip", `!R.querySelector(".panel").hidden && !R.querySelector(".chip").hidden`)
	chip := Eval[string](b, `R.querySelector(".chip blockquote").textContent`)
	if chip == "" || !strings.HasPrefix(strings.Join(strings.Fields(selected), " "), strings.TrimSuffix(chip, "…")) {
		t.Errorf("scenario 2: chip shows %q for selection %q", chip, selected)
	}
	b.Screenshot("05-selection-chip")
	b.Ask(cfg.SelectionQuestion)
	a = b.lastAnswer()
	b.Screenshot("06-selection-answer")
	if a.Refusal || strings.TrimSpace(a.Text) == "" {
		t.Errorf("scenario 2: no answer about the selection: refusal=%v %q", a.Refusal, a.Text)
	}
	if !Eval[bool](b, `R.querySelector(".chip").hidden && !!R.querySelector(".msg.user:last-of-type .quote, .msg.user .quote")`) {
		t.Error("scenario 2: after sending, the chip should be gone and the question should show its quote")
	}

	// (3) An off-domain question is refused, and looks like a refusal.
	b.Ask(cfg.OffTopicQuestion)
	r := b.lastAnswer()
	b.Screenshot("07-refusal")
	if !r.Refusal {
		t.Fatalf("scenario 3: %q was not shown as a refusal: %s", cfg.OffTopicQuestion, r.Text)
	}
	if want := RefusalLabels[r.Reason]; want == "" || !strings.Contains(strings.ToLower(r.Text), strings.ToLower(want)) || len(r.Links) != 0 {
		t.Errorf("scenario 3: %s refusal shows %q with links %v, want it under %q", r.Reason, r.Text, r.Links, want)
	}
	if r.Background == a.Background || !strings.HasPrefix(r.Border, "dashed") {
		t.Errorf("scenario 3: refusal is not styled apart from answers: background %s vs %s, border %s", r.Background, a.Background, r.Border)
	}
	if strings.Contains(r.Text, "\n1. ") || strings.Contains(r.Text, "\n- ") {
		t.Errorf("scenario 3: list lines shown as plain text: %q", r.Text)
	}

	// (4) Reload: the conversation comes back from the server.
	session := Eval[string](b, `localStorage.getItem("textbook-rag:session") || ""`)
	if session == "" {
		t.Fatal("scenario 4: no session id in localStorage")
	}
	b.Navigate(start)
	b.OpenPanel()
	b.WaitFor("the conversation after reload", `R.querySelectorAll(".msg.user").length >= 3 && R.querySelectorAll(".msg.assistant").length >= 3`)
	b.Do(chromedp.Sleep(300 * time.Millisecond)) // let the typing dots settle for the screenshot
	b.Screenshot("08-history-after-reload")
	h := b.lastAnswer()
	if !h.Refusal {
		t.Error("scenario 4: the reloaded refusal is not styled as a refusal")
	}
	if got := Eval[[]string](b, `Array.from(R.querySelectorAll(".msg.user .quote")).map(q => q.textContent)`); len(got) != 1 || got[0] == "" ||
		!strings.HasPrefix(strings.Join(strings.Fields(selected), " "), strings.TrimSuffix(got[0], "…")) {
		t.Errorf("scenario 4: after reload the quotes are %q, want the selection question's alone (%q)", got, selected)
	}
	if n := Eval[int](b, `Array.from(R.querySelectorAll(".msg.assistant .sources a")).filter(a => a.href === `+jsString(source)+`).length`); n == 0 {
		t.Error("scenario 4: the reloaded answer lost its source link")
	}

	// Dark theme.
	b.Do(func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return chromedp.Void{}, err
	})
	b.Do(chromedp.Sleep(200 * time.Millisecond))
	b.Screenshot("09-dark")
	if bg := Eval[string](b, `getComputedStyle(R.querySelector(".panel")).backgroundColor`); bg == "rgb(255, 255, 255)" {
		t.Error("dark theme: the panel stays white")
	}
	b.Do(func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
		return chromedp.Void{}, err
	})

	// (1, end) The source link lands on its heading, the panel out of the
	// way and the launcher offering the way back.
	link := `Array.from(R.querySelectorAll(".msg.assistant .sources a")).find(a => a.href === ` + jsString(source) + `)`
	b.Exec(link + `.scrollIntoView({block: "center"})`)
	b.ClickAt("the source link", link)
	b.WaitFor("the source's page", `location.href === `+jsString(source)+` && document.readyState === "complete" && R && R.querySelector(".launcher")`)
	anchor := Eval[string](b, `(() => { const id = decodeURIComponent(location.hash.slice(1)); const e = document.getElementById(id); if (!e) return ""; const r = e.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight ? id : "offscreen:" + id; })()`)
	b.Screenshot("10-source-target")
	if anchor == "" || strings.HasPrefix(anchor, "offscreen:") {
		t.Errorf("scenario 1: the source link %s does not land on its anchor (%q)", source, anchor)
	}
	if !Eval[bool](b, `R.querySelector(".panel").hidden && R.querySelector(".launcher").classList.contains("is-back")`) {
		t.Error("scenario 1: after the source link the panel should be collapsed, the launcher leading back")
	}

	// "New conversation" forgets the session.
	b.OpenPanel()
	b.ClickAt("New conversation", `R.querySelector(".new")`)
	b.WaitFor("an empty conversation", `!R.querySelector(".msg") && localStorage.getItem("textbook-rag:session") === null`)

	if ex := b.Exceptions(); len(ex) > 0 {
		t.Errorf("JavaScript exceptions: %q", ex)
	}
	t.Logf("screenshots in %s", dir)
}

// SelectParagraph selects the first paragraph of 80+ characters on the page
// as a reader would, waits for "Ask about this" and returns the selection.
func (b *Browser) SelectParagraph() string {
	b.t.Helper()
	para := `Array.from(document.querySelectorAll("article p")).find(p => p.textContent.trim().length > 80)`
	if !Eval[bool](b, `!!(`+para+`)`) {
		b.t.Fatal("no paragraph of 80+ characters on the page")
	}
	b.Exec(`(` + para + `).scrollIntoView({block: "center"})`)
	pt := Eval[[]float64](b, `(() => { const r = (`+para+`).getBoundingClientRect(); return [r.left + 3, r.top + 8]; })()`)
	b.Do(chromedp.MouseClickXY(pt[0], pt[1], chromedp.ClickCount(3)))
	if Eval[string](b, `String(document.getSelection()).trim()`) == "" {
		// Triple-click did not select; select the paragraph the way a drag would.
		b.Exec(`(() => { const s = document.getSelection(); s.removeAllRanges(); const r = document.createRange(); r.selectNodeContents(` + para + `); s.addRange(r); document.dispatchEvent(new MouseEvent("mouseup", {bubbles: true})); })()`)
	}
	b.WaitFor(`the "Ask about this" button`, `!R.querySelector(".ask-selection").hidden`)
	return Eval[string](b, `String(document.getSelection()).trim()`)
}

func jsString(s string) string {
	return "`" + strings.NewReplacer("\\", "\\\\", "`", "\\`", "${", "\\${").Replace(s) + "`"
}

// Exec runs JavaScript (with R bound to the widget's shadow root).
func (b *Browser) Exec(js string) {
	b.t.Helper()
	b.Do(chromedp.Evaluate[chromedp.Void](withRoot(js)))
}

// Keys types keys into the focused element ("\r" is Enter, "\x1b" Esc).
func (b *Browser) Keys(keys string, modifiers ...chromedp.Modifier) {
	b.t.Helper()
	b.Do(chromedp.KeyEvent(keys, chromedp.KeyModifiers(modifiers...)))
}
