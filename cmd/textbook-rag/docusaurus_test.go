package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/textbook-rag/rag/sample"
	"github.com/textbook-rag/rag/web/browsertest"
)

// The Docusaurus test builds a real Docusaurus site with the npm
// packages pinned in testdata/docusaurus (package.json and its lock
// file), installed once into the user's cache directory and reused while
// the pins stay the same.
const docusaurusEnv = "TEXTBOOK_RAG_DOCUSAURUS"

// TestDocusaurusSite puts the widget on a real Docusaurus site of the
// sample book, twice: with the README's script tag in
// docusaurus.config.js, and with the plugin file of web/docusaurus. Each
// site is built with @docusaurus/core and @docusaurus/preset-classic,
// served on 127.0.0.1 beside a running tutor that allows its origin,
// and driven in Chromium at 1280x900 and 390x844: a question answered
// with a source link that lands on its heading of the Docusaurus page,
// and a refusal for want of context whose "Where the book discusses
// this" links land there too. Screenshots: docusaurus-<way>-<size>-*.
//
// It needs node 20+, npm, Chromium and, on the first run, the npm
// registry, and takes minutes: it runs when TEXTBOOK_RAG_DOCUSAURUS=1
// (.ci/run sets it) and skips with the reason otherwise.
func TestDocusaurusSite(t *testing.T) {
	if testing.Short() {
		t.Skip("Docusaurus test skipped in -short mode")
	}
	if os.Getenv(docusaurusEnv) == "" {
		// One literal, so that the README's test summary can be checked
		// against it.
		t.Skip("Docusaurus test skipped: it installs npm packages and builds a site (minutes); set TEXTBOOK_RAG_DOCUSAURUS=1 to run it (.ci/run does)")
	}
	if browsertest.ChromePath() == "" {
		t.Skip("Docusaurus test skipped: no Chromium installed (apt-get install chromium)")
	}
	requireNode(t)
	modules := docusaurusModules(t)

	// The site's address comes first: the tutor must allow its origin,
	// and the site's config names the tutor.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	site := "http://" + ln.Addr().String()
	var root atomic.Pointer[string]
	srv := &http.Server{Handler: builtSite(&root), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	tutor, _ := startService(t, func(c *Config) { c.AllowedOrigins = []string{site} })

	for _, way := range []struct {
		name   string
		config func(dir string) string // the site's config lines that add the tutor
	}{
		{"script", func(string) string { return readmeScripts(t, tutor, site) }},
		{"plugin", func(dir string) string {
			copyFile(t, filepath.Join("..", "..", "web", "docusaurus", "textbook-rag.js"), filepath.Join(dir, "textbook-rag.js"))
			return fmt.Sprintf("  plugins: [['./textbook-rag.js', {tutor: %s}]],\n", strconv.Quote(tutor))
		}},
	} {
		t.Run(way.name, func(t *testing.T) {
			dir := t.TempDir()
			out := buildSite(t, dir, modules, site, way.config(dir))
			root.Store(&out)
			for _, v := range []browsertest.Viewport{browsertest.Desktop, browsertest.Phone} {
				t.Run(v.Name, func(t *testing.T) { docusaurusScenario(t, site, way.name, v) })
			}
		})
	}
}

// requireNode skips unless node 20 or later and npm are on PATH:
// Docusaurus 3.10 needs node 20.
func requireNode(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("Docusaurus test skipped: no %s on PATH (apt-get install nodejs npm)", tool)
		}
	}
	v, err := exec.Command("node", "--version").Output()
	if err != nil {
		t.Skipf("Docusaurus test skipped: node --version: %v", err)
	}
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(v)), "v"), ".", 2)[0])
	if major < 20 {
		t.Skipf("Docusaurus test skipped: node %s is older than the 20 Docusaurus 3.10 needs", strings.TrimSpace(string(v)))
	}
}

// docusaurusModules returns a node_modules folder holding the pinned
// packages: the cached one, or a fresh install (npm ci) that becomes the
// cache. It skips when the npm registry cannot be reached.
func docusaurusModules(t *testing.T) string {
	t.Helper()
	spec := filepath.Join("testdata", "docusaurus")
	h := sha256.New()
	for _, name := range []string{"package.json", "package-lock.json"} {
		data, err := os.ReadFile(filepath.Join(spec, name))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(data)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = t.TempDir() // no cache: installed for this run only
	}
	cache = filepath.Join(cache, "textbook-rag")
	final := filepath.Join(cache, "docusaurus-"+hex.EncodeToString(h.Sum(nil))[:12])
	const stamp = ".textbook-rag-installed"
	if _, err := os.Stat(filepath.Join(final, stamp)); err == nil {
		t.Logf("npm packages: cached in %s", final)
		return filepath.Join(final, "node_modules")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "npm", "ping").CombinedOutput(); err != nil {
		t.Skipf("Docusaurus test skipped: the npm registry cannot be reached (npm ping: %v: %s)", err, lastLines(out, 3))
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(cache, "install-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp) // gone once renamed
	for _, name := range []string{"package.json", "package-lock.json"} {
		copyFile(t, filepath.Join(spec, name), filepath.Join(tmp, name))
	}
	start := time.Now()
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "NO_UPDATE_NOTIFIER=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		if networkFailure.Match(out) {
			t.Skipf("Docusaurus test skipped: the npm registry failed during npm ci: %v\n%s", err, lastLines(out, 10))
		}
		t.Fatalf("npm ci of the pinned Docusaurus packages: %v\n%s", err, lastLines(out, 30))
	}
	if err := os.WriteFile(filepath.Join(tmp, stamp), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A half-made folder from a run that was stopped is replaced; a
	// finished one from a run alongside is kept.
	if _, err := os.Stat(filepath.Join(final, stamp)); err != nil {
		os.RemoveAll(final)
		if err := os.Rename(tmp, final); err != nil && !errors.Is(err, fs.ErrExist) {
			t.Fatalf("keep the npm packages: %v", err)
		}
	}
	t.Logf("npm packages: installed in %s in %s", final, time.Since(start).Round(time.Second))
	return filepath.Join(final, "node_modules")
}

// networkFailure matches npm's reports of a registry it could not reach
// or that failed: the registry is unavailable, the test is not wrong.
var networkFailure = regexp.MustCompile(`\b(ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|E5\d\d)\b`)

// readmeScripts is the scripts entry of the README's docusaurus.config.js
// example, its tutor and course site pointed at the ones running here.
func readmeScripts(t *testing.T, tutor, site string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```js\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		block := m[1]
		i := strings.Index(block, "scripts:")
		if !strings.Contains(block, "docusaurus.config.js") || i < 0 {
			continue
		}
		j := strings.Index(block[i:], "],")
		src := regexp.MustCompile(`src:\s*'([a-z]+://[^/']+)/widget\.js'`).FindStringSubmatch(block)
		book := regexp.MustCompile(`'data-book-url':\s*'([a-z]+://[^/']+)`).FindStringSubmatch(block)
		if j < 0 || src == nil || book == nil {
			t.Fatalf("README.md's docusaurus.config.js example has no scripts entry with src '<tutor>/widget.js' and 'data-book-url':\n%s", block)
		}
		scripts := block[i : i+j+2]
		scripts = strings.ReplaceAll(scripts, src[1], tutor)
		scripts = strings.ReplaceAll(scripts, book[1], site)
		return "  " + scripts + "\n"
	}
	t.Fatal("README.md has no ```js example of docusaurus.config.js with a scripts entry (the widget on a Docusaurus site)")
	return ""
}

// buildSite writes a minimal Docusaurus site of the sample book into dir
// (the classic preset, the book under docs, a home page), with extra in
// its config, builds it and returns the folder of the built site.
func buildSite(t *testing.T, dir, modules, site, extra string) string {
	t.Helper()
	config := fmt.Sprintf(`// A minimal course site: the sample book and the tutor.
module.exports = {
  title: 'Physical AI & Humanoid Robotics',
  url: %s,
  baseUrl: '/',
  onBrokenLinks: 'throw',
  presets: [['classic', {docs: {}, blog: false}]],
%s};
`, strconv.Quote(site), extra)
	if err := os.WriteFile(filepath.Join(dir, "docusaurus.config.js"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "docs"), sample.Docs()); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "src", "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	home := "---\ntitle: Home\n---\n\n# Physical AI & Humanoid Robotics\n\n[Read the book](/docs/intro)\n"
	if err := os.WriteFile(filepath.Join(dir, "src", "pages", "index.md"), []byte(home), 0o644); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join("testdata", "docusaurus", "package.json"), filepath.Join(dir, "package.json"))
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "build")
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	// Unminified, and without webpack's cache, which a site in a new
	// folder each run could not reuse: a build of under a minute.
	cmd := exec.CommandContext(ctx, "node", filepath.Join(modules, "@docusaurus", "core", "bin", "docusaurus.mjs"), "build", "--no-minify", "--out-dir", out)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DOCUSAURUS_NO_PERSISTENT_CACHE=1", "NO_UPDATE_NOTIFIER=1")
	if log, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("docusaurus build: %v\n%s", err, lastLines(log, 40))
	}
	t.Logf("docusaurus build: %s", time.Since(start).Round(time.Second))
	return out
}

// builtSite serves the built site in *root as a static host does:
// /docs/x is docs/x/index.html or docs/x.html; anything else is the
// site's 404 page.
func builtSite(root *atomic.Pointer[string]) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dir := root.Load()
		if dir == nil {
			http.NotFound(w, r)
			return
		}
		fsys := os.DirFS(*dir)
		p := strings.Trim(path.Clean("/"+r.URL.Path), "/")
		for _, name := range []string{p, path.Join(p, "index.html"), p + ".html"} {
			if name == "" {
				continue
			}
			if info, err := fs.Stat(fsys, name); err == nil && !info.IsDir() {
				http.ServeFileFS(w, r, fsys, name)
				return
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		if page, err := fs.ReadFile(fsys, "404.html"); err == nil {
			w.Write(page)
		}
	})
}

// docusaurusScenario asks on the Docusaurus site: an answer whose source
// link lands on its heading, and a refusal for want of context whose
// sections do too, each link on the site's own pages.
func docusaurusScenario(t *testing.T, site, way string, v browsertest.Viewport) {
	b := browsertest.NewBrowser(t, browsertest.ArtifactsDir(t))
	b.SetViewport(v)
	shot := func(name string) { b.Screenshot("docusaurus-" + way + "-" + v.Name + "-" + name) }
	b.Navigate(site + "/docs/intro")
	if got := browsertest.Eval[string](b, `(document.querySelector("article h1") || {}).textContent || ""`); got != "Physical AI & Humanoid Robotics Basics" {
		t.Fatalf("the Docusaurus page shows %q, not the book's first page", got)
	}
	if n := browsertest.Eval[int](b, `document.querySelectorAll("#textbook-rag-widget").length`); n != 1 {
		t.Errorf("%d widgets on the page, want one", n)
	}
	shot("01-page")

	// An answer with a source link into the site's own pages.
	b.OpenPanel()
	b.Ask("How does a LiDAR measure distance?")
	type answer struct {
		Refusal bool
		Text    string
		Links   []string
	}
	last := func(sel string) answer {
		return browsertest.Eval[answer](b, `(() => {
			const m = Array.from(R.querySelectorAll(".msg.assistant")).pop();
			return {Refusal: m.classList.contains("refusal"), Text: m.innerText, Links: Array.from(m.querySelectorAll(`+strconv.Quote(sel)+`)).map(a => a.href)};
		})()`)
	}
	a := last(".sources a")
	shot("02-answer")
	if a.Refusal || len(a.Links) == 0 {
		t.Fatalf("the LiDAR question got no answer with sources: %+v", a)
	}
	follow(t, b, site, a.Links[0], ".sources a")
	shot("03-source")

	// A refusal for want of context, and where the book discusses it.
	b.OpenPanel()
	b.Ask("How many topics can one ROS 2 node publish?")
	b.WaitFor("where the book discusses it", `(() => { const m = Array.from(R.querySelectorAll(".msg.assistant")).pop(); return m.matches(".refusal") && m.querySelectorAll(".where a").length > 0; })()`)
	r := last(".where a")
	b.Exec(`Array.from(R.querySelectorAll(".msg.assistant")).pop().scrollIntoView({block: "end"})`)
	shot("04-where")
	if !strings.Contains(strings.ToLower(r.Text), "where the book discusses this") {
		t.Errorf("the refusal shows %q", r.Text)
	}
	follow(t, b, site, r.Links[0], ".where a")
	shot("05-where-section")
	if ex := b.Exceptions(); len(ex) > 0 {
		t.Errorf("JavaScript exceptions: %q", ex)
	}
}

// follow clicks the widget's link to href (matched by sel) and checks that
// it is a page of the site whose heading, the link's anchor, shows with
// the tutor out of the way.
func follow(t *testing.T, b *browsertest.Browser, site, href, sel string) {
	t.Helper()
	if !strings.HasPrefix(href, site+"/docs/") || !strings.Contains(href, "#") {
		t.Fatalf("link %s does not lead to a section of the site's pages (%s/docs/...#...)", href, site)
	}
	link := `Array.from(R.querySelectorAll(` + strconv.Quote(sel) + `)).find(a => a.href === ` + strconv.Quote(href) + `)`
	b.Exec(link + `.scrollIntoView({block: "center"})`)
	b.ClickAt("the link to "+href, link)
	b.WaitFor("the section "+href, `location.href === `+strconv.Quote(href)+` && document.readyState === "complete" && R && R.querySelector(".launcher")`)
	b.WaitFor("the heading of "+href, `(() => {
		const h = document.getElementById(decodeURIComponent(location.hash.slice(1)));
		if (!h) return false;
		const r = h.getBoundingClientRect();
		return r.top >= 0 && r.bottom <= innerHeight;
	})()`)
	if !browsertest.Eval[bool](b, `R.querySelector(".panel").hidden && R.querySelector(".launcher").classList.contains("is-back")`) {
		t.Errorf("after the link to %s the tutor should be collapsed, offering the way back", href)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// lastLines is the end of a command's output, for an error message.
func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
