package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/textbook-rag/rag/internal/sharedtest"
	"github.com/textbook-rag/rag/web"
)

// testBook is a small Docusaurus-style tree: a root chapter, a module with
// a _category_.json and an MDX chapter, and a module without one.
func testBook() fstest.MapFS {
	return fstest.MapFS{
		"intro.md": {Data: []byte(`---
id: intro
title: "Welcome to Robotics"
sidebar_position: 1
---

# Welcome to Robotics

Robots sense and act. See [topics](./module-1/topics.md#publishers) and [the overview](/module-1/overview).
`)},
		"module-1/_category_.json": {Data: []byte(`{"label": "Module 1: ROS 2 Basics", "position": 2}`)},
		"module-1/topics.md": {Data: []byte(`---
id: chapter-2-topics
title: "Chapter 2: Topics"
sidebar_label: "2. Topics"
sidebar_position: 3
---

## Publishers & Subscribers

A **publisher** sends messages.

## Quality of Service (QoS) {#qos}

| Policy | Meaning |
|--------|---------|
| Reliable | Retries |

## Publishers & Subscribers

Second section with the same heading.

` + "```python\nimport rclpy\n<Tabs>\n```\n")},
		"module-1/overview.mdx": {Data: []byte(`---
title: Overview
sidebar_position: 1
---
import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';
export const meta = {a: 1};

# Module overview

<Tabs>
<TabItem value="py" label="Python">

Inner text of the Python tab.

</TabItem>
</Tabs>

Inline <Highlight color="red">highlighted words</Highlight> stay, ` + "`<Keep>`" + ` in code stays.

{/* an MDX comment */}

## What's New in ROS 2?

<script>alert("x")</script>

Text with <b onclick="evil()">html</b> and a [bad link](javascript:alert(1)).
`)},
		"module-2/index.md": {Data: []byte(`---
id: index
title: "Module 2: Simulation"
---

Simulation intro.
`)},
		"module-2/chapter-10-late.md": {Data: []byte("# Late chapter\n\nText.\n")},
		"module-2/chapter-9-early.md": {Data: []byte("# Early chapter\n\nText.\n")},
		"node_modules/x.md":           {Data: []byte("# ignored")},
	}
}

func newHandler(t *testing.T) *web.Handler {
	t.Helper()
	h, err := newPage(testBook(), web.Options{Title: "Test <Book>"})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(t *testing.T, h http.Handler, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

func TestRoutes(t *testing.T) {
	h := newHandler(t)
	tests := []struct {
		name, path  string
		status      int
		contentType string
		contains    []string
	}{
		{"home shows the first chapter", "/", 200, "text/html", []string{"<h1 id=\"welcome-to-robotics\">Welcome to Robotics</h1>", "Robots sense and act."}},
		{"root chapter", "/docs/intro", 200, "text/html", []string{"Robots sense and act."}},
		{"module chapter by front-matter id", "/docs/module-1/chapter-2-topics", 200, "text/html", []string{`id="publishers--subscribers"`}},
		{"chapter without id uses the file stem", "/docs/module-1/overview", 200, "text/html", []string{"Module overview"}},
		{"index chapter at its folder's path", "/docs/module-2", 200, "text/html", []string{"Simulation intro."}},
		{"file name is not the route when the id differs", "/docs/module-1/topics", 404, "text/html", []string{"Page not found"}},
		{"unknown chapter", "/docs/module-1/nope", 404, "text/html", []string{"Page not found"}},
		{"unknown path", "/nope", 404, "text/html", []string{"Page not found"}},
		{"too deep", "/docs/a/b/c", 404, "text/html", nil},
		{"widget", "/widget.js", 200, "text/javascript", []string{"textbook-rag:session", ":host"}},
		{"the page's script", "/page.js", 200, "text/javascript", []string{"has-menu", `aria-expanded`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := get(t, h, tt.path)
			if res.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d", res.StatusCode, tt.status)
			}
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
				t.Errorf("Content-Type = %q, want %s", ct, tt.contentType)
			}
			if res.Header.Get("Cache-Control") == "" {
				t.Error("no Cache-Control")
			}
			for _, s := range tt.contains {
				if !strings.Contains(body, s) {
					t.Errorf("body lacks %q", s)
				}
			}
		})
	}
}

// A page's id (the form older links used) and a module's folder redirect
// to the page's path.
func TestRedirects(t *testing.T) {
	h := newHandler(t)
	for from, to := range map[string]string{
		"/docs/module-2/index": "/docs/module-2",
		"/docs/module-1":       "/docs/module-1/overview", // no index page: the first chapter
	} {
		res, _ := get(t, h, from)
		if res.StatusCode != http.StatusFound || res.Header.Get("Location") != to {
			t.Errorf("%s: got %d to %q, want %s", from, res.StatusCode, res.Header.Get("Location"), to)
		}
	}
}

func TestAnchors(t *testing.T) {
	_, body := get(t, newHandler(t), "/docs/module-1/chapter-2-topics")
	for _, want := range []string{
		`<h2 id="publishers--subscribers">Publishers &amp; Subscribers</h2>`,
		`<h2 id="qos">Quality of Service (QoS)</h2>`,
		`<h2 id="publishers--subscribers-1">Publishers &amp; Subscribers</h2>`,
		"<table>",
		`<code class="language-python">import rclpy`,
		"&lt;Tabs&gt;", // JSX-looking text in code is code
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	_, body = get(t, newHandler(t), "/docs/module-1/overview")
	if !strings.Contains(body, `id="whats-new-in-ros-2"`) {
		t.Error("heading slug drops punctuation: want id whats-new-in-ros-2")
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Publishers & Subscribers":  "publishers--subscribers",
		"What's New in ROS 2?":      "whats-new-in-ros-2",
		"snake_case and kebab-case": "snake_case-and-kebab-case",
		"Chapter 2: Topics":         "chapter-2-topics",
		"Ünïcode Héading":           "ünïcode-héading",
	} {
		if got := web.Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFrontMatterAndMDXStripped(t *testing.T) {
	h := newHandler(t)
	_, body := get(t, h, "/docs/module-1/chapter-2-topics")
	for _, bad := range []string{"sidebar_position", "id: chapter-2-topics"} {
		if strings.Contains(body, bad) {
			t.Errorf("front matter leaked: %q", bad)
		}
	}
	_, body = get(t, h, "/docs/module-1/overview")
	for _, bad := range []string{"@theme/Tabs", "export const", "TabItem", "&lt;Tabs", "Highlight", "MDX comment", "<script>alert", "onclick", "javascript:"} {
		if strings.Contains(body, bad) {
			t.Errorf("page shows %q", bad)
		}
	}
	for _, want := range []string{"Inner text of the Python tab.", "highlighted words", "<code>&lt;Keep&gt;</code>"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestNavigation(t *testing.T) {
	_, body := get(t, newHandler(t), "/docs/module-1/chapter-2-topics")
	order := []string{
		`href="/docs/intro"`,
		"Module 1: ROS 2 Basics",
		`href="/docs/module-1/overview"`,
		`href="/docs/module-1/chapter-2-topics" aria-current="page">2. Topics<`,
		"Module 2: Simulation", // no _category_.json: the index chapter's title
		`href="/docs/module-2/chapter-9-early"`,
		`href="/docs/module-2/chapter-10-late"`,
	}
	at := 0
	for _, s := range order {
		i := strings.Index(body[at:], s)
		if i < 0 {
			t.Fatalf("nav lacks %q after offset %d", s, at)
		}
		at += i + len(s)
	}
	if strings.Contains(body, "ignored") {
		t.Error("node_modules was read")
	}
	if !strings.Contains(body, `<script src="/widget.js" data-api="" data-book-url="/docs"></script>`) {
		t.Error("page does not include the widget")
	}
	// On a narrow screen the chapters wait behind the menu button, which
	// page.js, in the head, shows.
	for _, s := range []string{`<script src="/page.js"></script>
</head>`, `<button class="menu" type="button" aria-expanded="false" aria-controls="sidebar" hidden>`, `<nav class="sidebar" id="sidebar" aria-label="Chapters">`} {
		if !strings.Contains(body, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if !strings.Contains(body, "Test &lt;Book&gt;") {
		t.Error("title not escaped")
	}
}

func TestLinksBetweenChapters(t *testing.T) {
	_, body := get(t, newHandler(t), "/docs/intro")
	for _, want := range []string{`href="/docs/module-1/chapter-2-topics#publishers"`, `href="/docs/module-1/overview"`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}

func TestOptions(t *testing.T) {
	h, err := newPage(testBook(), web.Options{APIBase: "https://tutor.example/", BookURL: "https://course.example/docs/"})
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, h, "/")
	if !strings.Contains(body, `data-api="https://tutor.example" data-book-url="https://course.example/docs"`) {
		t.Error("options not passed to the widget")
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self' https://tutor.example") {
		t.Errorf("CSP %q does not allow the API", csp)
	}
	// No other site frames the reader's page (clickjacking).
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'self'") {
		t.Errorf("CSP %q lacks frame-ancestors", csp)
	}
}

func TestEmptyBook(t *testing.T) {
	h, err := newPage(fstest.MapFS{}, web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, h, "/")
	if res.StatusCode != 200 || !strings.Contains(body, "no chapters yet") {
		t.Fatalf("got %d %s", res.StatusCode, body)
	}
}

// Two pages with one id (Docusaurus refuses to build such a site) are both
// served, the second at its file path, as the chunker names them.
func TestDuplicateRoutes(t *testing.T) {
	h, err := newPage(fstest.MapFS{
		"m/a.md": {Data: []byte("---\nid: same\n---\n# A\n\nPage a.")},
		"m/b.md": {Data: []byte("---\nid: same\n---\n# B\n\nPage b.")},
	}, web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/docs/m/same": "Page a.", "/docs/m/b": "Page b."} {
		if res, body := get(t, h, path); res.StatusCode != 200 || !strings.Contains(body, want) {
			t.Errorf("%s: %d, want %q", path, res.StatusCode, want)
		}
	}
}

func TestWidgetConditionalGet(t *testing.T) {
	h := newHandler(t)
	res, _ := get(t, h, "/widget.js")
	req := httptest.NewRequest(http.MethodGet, "/widget.js", nil)
	req.Header.Set("If-None-Match", res.Header.Get("ETag"))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified {
		t.Fatalf("status %d, want 304", rec.Code)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	rec := httptest.NewRecorder()
	newHandler(t).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/docs/intro", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("status %d", rec.Code)
	}
}

// TestSharedCorpus loads the evaluation textbook when the checkout has it.
func TestSharedCorpus(t *testing.T) {
	dir := "../../shared/corpus/physical-ai-textbook"
	sharedtest.Require(t, dir)
	h, err := newPage(os.DirFS(dir), web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, h, "/docs/module-4/chapter-5-domain-randomization")
	if res.StatusCode != 200 || !strings.Contains(body, `id="replicator"`) {
		t.Fatalf("status %d; custom heading id missing", res.StatusCode)
	}
	if !strings.Contains(body, "import omni.replicator.core as rep") {
		t.Error("an import line inside a code block was stripped")
	}
}

// Docusaurus takes a folder's README.md, like its index.md, as the page
// that introduces the module: its title names the module and it is the
// page at /docs/<module>.
func TestReadmeIsModuleIndex(t *testing.T) {
	h, err := newPage(fstest.MapFS{
		"tools/README.md":  {Data: []byte("# Garden Tools\n\nGrippers and sprayers.\n")},
		"tools/gripper.md": {Data: []byte("---\nsidebar_position: 1\n---\n# Soft Grippers\n\nSilicone fingers.\n")},
	}, web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, h, "/docs/tools")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "Grippers and sprayers.") {
		t.Errorf("/docs/tools: got %d, want the README", res.StatusCode)
	}
	_, body = get(t, h, "/docs/tools/gripper")
	if !strings.Contains(body, "Garden Tools") {
		t.Error("the module is not titled after its README")
	}
}

// A doc-builder course's pages come in the order and under the titles of
// its _toctree.yml; a heading's [[anchor]] is its id on the page, not text.
func TestDocBuilderPages(t *testing.T) {
	h, err := newPage(os.DirFS("../markdown/testdata/docbuilder"), web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, body := get(t, h, "/docs/chapter1/3")
	nav := []string{
		"0. Setup", ">Setting up a working environment<", "1. Attention, step by step", ">Introduction<",
		">Masks and padding<", ">Scores<", ">Scaled scores<", ">Attention in Keras<",
		">Live sessions<", "2. Putting it to work", ">A small classifier<",
	}
	at := 0
	for _, s := range nav {
		i := strings.Index(body[at:], s)
		if i < 0 {
			t.Fatalf("nav lacks %q after offset %d", s, at)
		}
		at += i + len(s)
	}
	for _, want := range []string{
		`<h1 id="masks-and-padding">Masks and padding</h1>`,
		`<h2 id="attention-masks">Attention masks</h2>`,
		"# Attention masks[[attention-masks]]", // in a code block it is code
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(body, "Attention masks[[attention-masks]]</h2>") {
		t.Error("the heading shows its anchor")
	}
	_, body = get(t, h, "/docs/chapter1/2")
	for _, bad := range []string{"{#if", "{:else}", "{/if}", "tf.matmul", "CourseFloatingBanner"} {
		if strings.Contains(body, bad) {
			t.Errorf("page shows %q", bad)
		}
	}
}

// An mdBook's pages come in the order and under the titles of its
// SUMMARY.md (a page it does not list is no page of the book), its
// includes are read, and its .html links lead to pages.
func TestMdBookPages(t *testing.T) {
	h, err := newPage(os.DirFS("../markdown/testdata/mdbook"), web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, h, "/docs/ch01-00-getting-started")
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	nav := []string{
		`href="/docs/title-page"`, `href="/docs/foreword"`, "Getting Started",
		`href="/docs/ch01-01-installation"`, ">Installation<", `href="/docs/ch01-02-hello-world"`,
		`href="/docs/ch02-00-guessing-game"`, "Appendix", `href="/docs/appendix/keywords"`,
	}
	at := 0
	for _, s := range nav {
		i := strings.Index(body[at:], s)
		if i < 0 {
			t.Fatalf("nav lacks %q after offset %d", s, at)
		}
		at += i + len(s)
	}
	for _, want := range []string{`href="/docs/ch01-01-installation"`, `href="/docs/ch01-02-hello-world#writing-and-running-a-program"`} {
		if !strings.Contains(body[at:], want) {
			t.Errorf("the page's links lack %s", want)
		}
	}
	for _, bad := range []string{"SUMMARY", "print edition", "/docs/src/", `href="/docs/unlisted"`} {
		if strings.Contains(body, bad) {
			t.Errorf("page shows %q", bad)
		}
	}
	_, body = get(t, h, "/docs/ch01-02-hello-world")
	if !strings.Contains(body, "println!(&#34;Hello, world!&#34;);") && !strings.Contains(body, `println!(&quot;Hello, world!&quot;);`) {
		t.Errorf("the included listing is not on the page:\n%s", body)
	}
	if strings.Contains(body, "{{#rustdoc_include") || strings.Contains(body, "{{#include ../") {
		t.Error("the page shows an include link")
	}
	if !strings.Contains(body, "escape it: {{#include file.rs}} is shown") {
		t.Error("an escaped include link is not shown as text")
	}
}

// A Quarto book's pages come in the order of its _quarto.yml, and its
// links to .qmd files and to the .html pages Quarto builds lead to pages.
func TestQuartoPages(t *testing.T) {
	h, err := newPage(os.DirFS("../markdown/testdata/layouts/quarto"), web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, h, "/docs/intro")
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	at := 0
	for _, s := range []string{`href="/docs/intro"`, "Methods", `href="/docs/methods/sampling"`, `href="/docs/methods/analysis"`, `href="/docs/glossary"`} {
		i := strings.Index(body[at:], s)
		if i < 0 {
			t.Fatalf("nav lacks %q after offset %d", s, at)
		}
		at += i + len(s)
	}
	for _, want := range []string{`href="/docs/methods/sampling"`, `href="/docs/methods/analysis#analysis"`} {
		if !strings.Contains(body[at:], want) {
			t.Errorf("the page's links lack %s", want)
		}
	}
	for _, bad := range []string{"callout", "[@", "{{&lt;", "{{<"} {
		if strings.Contains(body, bad) {
			t.Errorf("page shows %q", bad)
		}
	}
}

// TestCodeCellsAndMath reads a Quarto book and a bookdown book as their
// sites show them: every cell header form is code of its language with
// its filename as the caption, no option line or hidden cell shows, and
// math reaches the page whole, a MyST {math} directive's too. A GitBook exercise shows its starter code
// and solution as captioned code, not its checks; an MkDocs page shows
// no `#### :::` heading and no CSS.
func TestCodeCellsAndMath(t *testing.T) {
	tests := []struct {
		book, page string
		want, bad  []string
	}{
		{"quarto", "/docs/methods/analysis",
			[]string{`<figure class="code"><figcaption>Code</figcaption><pre><code class="language-zsh">git diff analysis.py`,
				`<figcaption>Output</figcaption><pre><code class="language-zsh">+richness`,
				`<figcaption>richness.py</figcaption><pre><code class="language-python">#| this line is code`,
				`<figcaption>count.sh</figcaption><pre><code class="language-bash">wc -l plots.csv`,
				`<span class="math inline">\(\bar{S} = \frac{1}{n}\sum_{i} S_{i}\)</span>`,
				`<span class="math inline">\(1\,\mathrm{m}^2\)</span> costs $5 to $10`},
			[]string{"language-{", "filename=", "#| label", "matplotlib", "<em>"}},
		{"bookdown", "/docs/02-membranes",
			[]string{`<div class="math display">\[J_{\text{in}} = P \, A \, (c_{\text{out}} - c_{\text{in}}) ~ \text{mol s}^{-1}\]</div>`,
				`<span class="math inline">\(\text{die}_{i}\)</span> and <span class="math inline">\(\text{die}_{j}\)</span>`,
				`<figcaption>Output</figcaption><pre><code class="language-bash">flux: 0.42`},
			[]string{"plot_flux", "<del>", "<em>", "filename="}},
		{"gitbook", "/docs/scarf",
			[]string{"<figure class=\"code\"><figcaption>Starter code</figcaption><pre><code>function rows(length) {\n}",
				"<figcaption>Solution</figcaption><pre><code>function rows(length) {\n  return length * 4;"},
			[]string{"assert(", "checker", "{%", "language-title"}},
		{"jupyterbook", "/docs/models/solow",
			[]string{`<div class="math display">\[k_{t+1} = s A k_t^\alpha + (1 - \delta) k_t\]</div>`,
				`<span class="math inline">\(\alpha = 0.3\)</span>`},
			[]string{"<em>", ":label:"}},
		{"mkdocs", "/docs/reference/units",
			[]string{"Convert before you compare", "Readings in centibars"},
			[]string{":::", "soilkit", "grid-template-columns", "md-typeset"}},
	}
	for _, tt := range tests {
		t.Run(tt.book, func(t *testing.T) {
			h, err := newPage(os.DirFS("../markdown/testdata/layouts/"+tt.book), web.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, body := get(t, h, tt.page)
			if res.StatusCode != 200 {
				t.Fatalf("status %d", res.StatusCode)
			}
			_, body, _ = strings.Cut(body, "<article")
			body, _, _ = strings.Cut(body, "</article>")
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %s", w)
				}
			}
			for _, b := range tt.bad {
				if strings.Contains(body, b) {
					t.Errorf("page shows %q", b)
				}
			}
		})
	}
}
