package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/textbook-rag/rag/postgres/pgtest"
	"github.com/textbook-rag/rag/qdrant/qdranttest"
)

// The README's examples are run by TestREADMEExamples, so that none can go
// stale. The rules a README example follows:
//
//   - Every ```sh block is run, a command at a time (a line, with its
//     backslash-continued lines), by sh in a temporary HOME. Each block
//     starts from the same environment; an export lasts to its block's end.
//   - `go install ./cmd/textbook-rag` is run for real, first, into a
//     temporary GOBIN on PATH; `textbook-rag` and `go run ./cmd/textbook-rag`
//     are that binary.
//   - The HOME holds the books the README names: my-course (the sample book,
//     with its site config and questions), rust-book (the mdBook fixture)
//     and hf-course/chapters/en (the doc-builder fixture).
//   - `textbook-rag serve` listens on 127.0.0.1, on a port of its own
//     (--addr and PORT are replaced), until /health answers; then it is
//     stopped with SIGTERM and must exit 0. With a trailing `&` it stays up
//     until its block ends, and the curl lines of the block that name its
//     port (8001 unless --addr says otherwise) are sent to it.
//   - OpenAI-compatible and Qdrant addresses are replaced by in-process
//     servers that speak their wire formats (nothing leaves the machine);
//     a command that needs Postgres runs on a schema of DATABASE_URL's
//     server, and skips without DATABASE_URL.
//   - A command must exit 0. A `# → TEXT` line under it is its expected
//     output, and a ```text block right after an sh block the expected
//     output of the block's last command; `…` stands for anything. A curl
//     whose answer is an API error fails unless its expected output shows
//     the error.
//   - `go test ./...` is not run (it would run this test): it must be the
//     documented test command, and the summary command's output block must
//     name real skip messages whose counts add up.
//
// The sh blocks of examplePages (docs/backends.md's production commands)
// are run the same way. Besides the blocks, the commands list must be
// `textbook-rag help`'s, and the configuration table (docs/configuration.md)
// must hold every flag that has an environment variable, with that
// variable and the flag's default.
func TestREADMEExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("README examples skipped in -short mode")
	}
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	fences := readFences("README.md", string(readme))
	r := newReadmeRun(t)
	r.install(t, fences)

	t.Run("commands", func(t *testing.T) { r.checkCommandsList(t, fences) })
	config, err := os.ReadFile(configPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("configuration", func(t *testing.T) { r.checkConfigTable(t, string(config)) })
	for _, page := range examplePages {
		text, err := os.ReadFile(filepath.Join("..", "..", page))
		if err != nil {
			t.Fatal(err)
		}
		fences = append(fences, readFences(page, string(text))...)
	}
	for _, f := range fences {
		if f.lang != "sh" {
			continue
		}
		t.Run(fmt.Sprintf("%s:%d", f.doc, f.line), func(t *testing.T) { r.runBlock(t, f) })
	}
}

const readmePath = "../../README.md"

// configPath is the page that holds the configuration table the README
// links to.
const configPath = "../../docs/configuration.md"

// examplePages are the pages of docs/ whose sh blocks are run as the
// README's are: the README hands its production commands on to them.
var examplePages = []string{"docs/backends.md"}

// fence is one fenced block of the README, or of a page of docs/ whose
// examples the README hands on (see examplePages).
type fence struct {
	doc   string // the file, from the repository's root
	lang  string
	line  int // of the opening fence, from 1
	body  []string
	after *fence // the fenced block right after it (blank lines between), if any
}

var fenceOpen = regexp.MustCompile("^```([a-z]*)\\s*$")

func readFences(doc, text string) []*fence {
	var out []*fence
	lines := strings.Split(text, "\n")
	var last *fence
	lastEnd := -1
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		f := &fence{doc: doc, lang: m[1], line: i + 1}
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			f.body = append(f.body, lines[i])
		}
		if last != nil && strings.TrimSpace(strings.Join(lines[lastEnd+1:f.line-1], "")) == "" {
			last.after = f
		}
		out = append(out, f)
		last, lastEnd = f, i
	}
	return out
}

// shCommand is one command of an sh block.
type shCommand struct {
	doc    string // the file it is in
	line   int    // in that file
	text   string // continuation lines joined
	expect string // its "# → " lines, "" when none
}

func commandsOf(f *fence) []shCommand {
	var cmds []shCommand
	for i := 0; i < len(f.body); i++ {
		line := f.body[i]
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			continue
		case strings.HasPrefix(trimmed, "# → "):
			if len(cmds) > 0 {
				c := &cmds[len(cmds)-1]
				if c.expect != "" {
					c.expect += "\n"
				}
				c.expect += strings.TrimPrefix(trimmed, "# → ")
			}
			continue
		case strings.HasPrefix(trimmed, "#"):
			continue
		}
		c := shCommand{doc: f.doc, line: f.line + 1 + i}
		for strings.HasSuffix(line, "\\") && i+1 < len(f.body) {
			c.text += strings.TrimSuffix(line, "\\") + " "
			i++
			line = f.body[i]
		}
		c.text = strings.TrimSpace(c.text + line)
		cmds = append(cmds, c)
	}
	return cmds
}

// readmeRun is what the blocks share: the binary, the HOME with its
// books, the stand-in services.
type readmeRun struct {
	bin, home string
	env       []string // each block's starting environment

	openAI    *sizedOpenAI
	openAIURL string
	qdrantURL string
}

func newReadmeRun(t *testing.T) *readmeRun {
	r := &readmeRun{bin: t.TempDir(), home: t.TempDir()}
	copyTree(t, "../../sample/docs", filepath.Join(r.home, "my-course", "docs")) // makes my-course
	copyFile(t, "../../sample/docusaurus.config.js", filepath.Join(r.home, "my-course", "docusaurus.config.js"))
	copyFile(t, "../../sample/questions.jsonl", filepath.Join(r.home, "my-course", "questions.jsonl"))
	copyTree(t, "../../markdown/testdata/mdbook", filepath.Join(r.home, "rust-book"))
	copyTree(t, "../../markdown/testdata/docbuilder", filepath.Join(r.home, "hf-course", "chapters", "en"))

	r.openAI = &sizedOpenAI{}
	r.openAI.dim.Store(1536)
	srv := httptest.NewServer(r.openAI)
	t.Cleanup(srv.Close)
	r.openAIURL = srv.URL + "/v1"
	_, r.qdrantURL = qdranttest.Start(t)

	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "TEXTBOOK_RAG_") || strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "QDRANT_") ||
			strings.HasPrefix(k, "EMBEDDING_") || strings.HasPrefix(k, "LLM_") ||
			k == "EMBED_TIMEOUT" || k == "DATABASE_URL" || k == "PORT" || k == "HOME" || k == "XDG_CACHE_HOME" || k == "PATH" {
			continue
		}
		r.env = append(r.env, kv)
	}
	r.env = append(r.env, "HOME="+r.home, "PATH="+r.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		// The default base URL is OpenAI's: never reached from a test.
		"OPENAI_BASE_URL="+r.openAIURL,
		// Nor is PyPI: the examples run on words alone (the sentence
		// model's own tests run the sample book with it).
		"TEXTBOOK_RAG_MODEL=off")
	return r
}

var installCmd = regexp.MustCompile(`^go install \./cmd/textbook-rag(\s|$)`)

// install runs the README's install command, with the real environment
// (Go's caches) and GOBIN set to the run's bin directory.
func (r *readmeRun) install(t *testing.T, fences []*fence) {
	for _, f := range fences {
		if f.lang != "sh" {
			continue
		}
		for _, c := range commandsOf(f) {
			if !installCmd.MatchString(c.text) {
				continue
			}
			cmd := exec.Command("sh", "-c", c.text)
			cmd.Dir = "../.."
			cmd.Env = append(os.Environ(), "GOBIN="+r.bin)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s:%d: %s: %v\n%s", c.doc, c.line, c.text, err, out)
			}
			if _, err := os.Stat(filepath.Join(r.bin, "textbook-rag")); err != nil {
				t.Fatalf("%s:%d: %s made no textbook-rag: %v", c.doc, c.line, c.text, err)
			}
			return
		}
	}
	t.Fatal("README.md has no `go install ./cmd/textbook-rag`: the examples need the binary it builds")
}

// block is the state of one sh block while it runs.
type block struct {
	r       *readmeRun
	env     map[string]string
	servers map[string]*readmeServer // by the port the README gives it
	pgURL   string                   // a schema for this block, made on first use
	// pgWanted: the README's DATABASE_URL was exported in this block.
	pgWanted bool
}

func (r *readmeRun) runBlock(t *testing.T, f *fence) {
	b := &block{r: r, env: map[string]string{}, servers: map[string]*readmeServer{}}
	for _, kv := range r.env {
		k, v, _ := strings.Cut(kv, "=")
		b.env[k] = v
	}
	defer b.stopServers(t)
	cmds := commandsOf(f)
	for i, c := range cmds {
		expect := c.expect
		if i == len(cmds)-1 && f.after != nil && f.after.lang == "text" {
			expect = strings.Join(f.after.body, "\n")
		}
		if !t.Run(fmt.Sprintf("line%d", c.line), func(t *testing.T) { b.run(t, c, expect) }) {
			return // the commands after it may depend on it
		}
	}
}

var (
	goRunCmd       = regexp.MustCompile(`\bgo run \./cmd/textbook-rag\b`)
	serveCmd       = regexp.MustCompile(`(^|\s)textbook-rag\s+serve(\s|$)`)
	historyCmd     = regexp.MustCompile(`(^|\s)textbook-rag\s+(serve|report)(\s|$)`)
	exportCmd      = regexp.MustCompile(`^export\s`)
	addrFlag       = regexp.MustCompile(`--addr(\s+|=)(\S+)`)
	openAIFlag     = regexp.MustCompile(`--openai-base-url(\s+|=)\S+`)
	qdrantFlag     = regexp.MustCompile(`--qdrant-url(\s+|=)\S+`)
	databaseFlag   = regexp.MustCompile(`--database-url(\s+|=)\S+`)
	embedDimFlag   = regexp.MustCompile(`--embedding-dim(\s+|=)(\d+)`)
	localhostPort  = regexp.MustCompile(`localhost:(\d+)`)
	trailingAmp    = regexp.MustCompile(`\s&\s*$`)
	testSummaryCmd = "go test -json ./... | go run ./.ci/testsummary"
)

func (b *block) run(t *testing.T, c shCommand, expect string) {
	text := goRunCmd.ReplaceAllString(c.text, "textbook-rag")
	switch {
	case installCmd.MatchString(text):
		return // run first, by install
	case text == "go test ./...":
		// The documented test command; running it here would run this test.
		ci, err := os.ReadFile("../../.ci/run")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(ci), "go test -json ./...") {
			t.Errorf("%s:%d: .ci/run does not run the README's test command (go test ./...)", c.doc, c.line)
		}
		return
	case text == testSummaryCmd:
		checkTestSummary(t, c.line, expect)
		return
	case strings.HasPrefix(text, "go "):
		t.Fatalf("%s:%d: %q: the README test does not know how to run this go command", c.doc, c.line, text)
	}
	for _, tool := range []string{"curl", "openssl"} {
		if strings.Contains(text, tool+" ") {
			if _, err := exec.LookPath(tool); err != nil {
				t.Skipf("%s not installed: skipping %s:%d", tool, c.doc, c.line)
			}
		}
	}

	// Services the README names are the in-process ones.
	text = openAIFlag.ReplaceAllString(text, "--openai-base-url "+b.r.openAIURL)
	text = qdrantFlag.ReplaceAllString(text, "--qdrant-url "+b.r.qdrantURL)
	if databaseFlag.MatchString(text) {
		text = databaseFlag.ReplaceAllString(text, "--database-url "+b.postgres(t))
	}
	env := b.env
	if b.pgWanted && historyCmd.MatchString(text) {
		env = copyEnv(b.env)
		env["DATABASE_URL"] = b.postgres(t)
	} else if b.pgWanted {
		env = copyEnv(b.env)
		delete(env, "DATABASE_URL")
	}
	dim := 1536
	if m := embedDimFlag.FindStringSubmatch(text); m != nil {
		dim, _ = strconv.Atoi(m[2])
	} else if v, err := strconv.Atoi(env["EMBEDDING_DIM"]); err == nil {
		dim = v
	}
	b.r.openAI.dim.Store(int64(dim))

	switch {
	case exportCmd.MatchString(text):
		b.export(t, c, text)
	case serveCmd.MatchString(text):
		b.serve(t, c, text, env, expect)
	default:
		if strings.Contains(text, "curl ") {
			text = b.toServers(t, c, text)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", text)
		cmd.Dir = b.r.home
		cmd.Env = envList(env)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s:%d: %s: %v\nstdout:\n%s\nstderr:\n%s", c.doc, c.line, c.text, err, stdout.String(), stderr.String())
		}
		out := stdout.String()
		if strings.Contains(text, "curl ") {
			checkNoAPIError(t, c, out, expect)
		}
		if expect != "" && !globMatch(b.localize(expect), out) {
			t.Fatalf("%s:%d: %s\nprinted:\n%s\nthe README shows:\n%s", c.doc, c.line, c.text, out, expect)
		}
	}
}

// postgres is the block's Postgres URL: a fresh schema on DATABASE_URL's
// server, or the test skips.
func (b *block) postgres(t *testing.T) string {
	if os.Getenv("DATABASE_URL") == "" {
		pgtest.SchemaURL(t) // skips, with the Postgres tests' message
	}
	if b.pgURL == "" {
		b.pgURL = pgtest.SchemaURL(t)
	}
	return b.pgURL
}

// export runs an export line in sh and keeps the variables it sets, the
// services' addresses replaced by the in-process ones.
func (b *block) export(t *testing.T, c shCommand, text string) {
	cmd := exec.Command("sh", "-c", text+"\nenv")
	cmd.Dir = b.r.home
	cmd.Env = envList(b.env)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s:%d: %s: %v", c.doc, c.line, c.text, err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && k != "" && !strings.ContainsAny(k, " \t") {
			env[k] = v
		}
	}
	if env["OPENAI_BASE_URL"] != "" {
		env["OPENAI_BASE_URL"] = b.r.openAIURL
	}
	if env["QDRANT_URL"] != "" {
		env["QDRANT_URL"] = b.r.qdrantURL
	}
	if env["DATABASE_URL"] != "" {
		b.pgWanted = true // given to the commands that use it, when there is a server
		delete(env, "DATABASE_URL")
	}
	b.env = env
}

// toServers sends the curl lines to the servers the block started.
func (b *block) toServers(t *testing.T, c shCommand, text string) string {
	return localhostPort.ReplaceAllStringFunc(text, func(s string) string {
		port := strings.TrimPrefix(s, "localhost:")
		srv := b.servers[port]
		if srv == nil {
			t.Fatalf("%s:%d: %s: no `textbook-rag serve … &` on port %s before it in its block", c.doc, c.line, c.text, port)
		}
		return srv.addr
	})
}

// localize writes the block's running servers' addresses into expected
// output.
func (b *block) localize(s string) string {
	for port, srv := range b.servers {
		s = strings.ReplaceAll(s, "localhost:"+port, srv.addr)
	}
	return s
}

// readmeServer is a `textbook-rag serve` the test started.
type readmeServer struct {
	cmd    *exec.Cmd
	addr   string // host:port it serves on
	stdout strings.Builder
	stderr *bytes.Buffer
	done   chan error
	mu     sync.Mutex
}

func (b *block) serve(t *testing.T, c shCommand, text string, env map[string]string, expect string) {
	background := trailingAmp.MatchString(text)
	text = trailingAmp.ReplaceAllString(text, "")
	port := "8001"
	if m := addrFlag.FindStringSubmatch(text); m != nil {
		port = m[2][strings.LastIndex(m[2], ":")+1:]
		text = addrFlag.ReplaceAllString(text, "--addr 127.0.0.1:0")
	}
	env = copyEnv(env)
	delete(env, "PORT")
	env["TEXTBOOK_RAG_ADDR"] = "127.0.0.1:0"

	srv := &readmeServer{stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	srv.cmd = exec.Command("sh", "-c", "exec "+text)
	srv.cmd.Dir = b.r.home
	srv.cmd.Env = envList(env)
	srv.cmd.Stderr = srv.stderr
	stdout, err := srv.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			srv.mu.Lock()
			srv.stdout.WriteString(sc.Text() + "\n")
			srv.mu.Unlock()
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- strings.TrimPrefix(m[1], "http://"):
				default:
				}
			}
		}
		srv.done <- srv.cmd.Wait()
	}()
	select {
	case srv.addr = <-addr:
	case err := <-srv.done:
		t.Fatalf("%s:%d: %s: exited before serving (%v):\n%s", c.doc, c.line, c.text, err, srv.stderr.String())
	case <-time.After(2 * time.Minute):
		srv.cmd.Process.Kill()
		t.Fatalf("%s:%d: %s: not serving after 2 minutes:\n%s", c.doc, c.line, c.text, srv.stderr.String())
	}
	b.servers[port] = srv
	resp, err := http.Get("http://" + srv.addr + "/health")
	if err != nil {
		t.Fatalf("%s:%d: %s: /health: %v", c.doc, c.line, c.text, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s:%d: %s: /health is %d: %s", c.doc, c.line, c.text, resp.StatusCode, body)
	}
	if expect != "" {
		srv.mu.Lock()
		out := srv.stdout.String()
		srv.mu.Unlock()
		if want := strings.ReplaceAll(expect, "localhost:"+port, srv.addr); !globMatch(want, out) {
			t.Errorf("%s:%d: %s\nprinted:\n%s\nthe README shows:\n%s", c.doc, c.line, c.text, out, expect)
		}
	}
	if !background {
		delete(b.servers, port)
		srv.stop(t, c)
	}
}

// stop sends SIGTERM and expects a clean exit.
func (srv *readmeServer) stop(t *testing.T, c shCommand) {
	srv.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-srv.done:
		if err != nil {
			t.Errorf("%s:%d: %s: after SIGTERM: %v\n%s", c.doc, c.line, c.text, err, srv.stderr.String())
		}
	case <-time.After(30 * time.Second):
		srv.cmd.Process.Kill()
		t.Errorf("%s:%d: %s: still running 30 s after SIGTERM", c.doc, c.line, c.text)
	}
}

func (b *block) stopServers(t *testing.T) {
	for port, srv := range b.servers {
		srv.stop(t, shCommand{text: "textbook-rag serve on port " + port})
	}
}

// checkNoAPIError fails a curl whose answer is an API error (a JSON body
// with "error", or a stream's error event) that the README does not show.
func checkNoAPIError(t *testing.T, c shCommand, out, expect string) {
	t.Helper()
	if strings.Contains(expect, `"error"`) || strings.Contains(expect, "event: error") {
		return
	}
	var body map[string]any
	if json.Unmarshal([]byte(out), &body) == nil {
		if _, ok := body["error"]; ok {
			t.Fatalf("%s:%d: %s: answered with an error: %s", c.doc, c.line, c.text, out)
		}
	}
	if strings.Contains(out, "event: error") {
		t.Fatalf("%s:%d: %s: the stream ended with an error: %s", c.doc, c.line, c.text, out)
	}
}

// globMatch says whether s is pattern, where … in the pattern stands for
// anything. Trailing spaces and newlines are not compared.
func globMatch(pattern, s string) bool {
	norm := func(x string) string {
		lines := strings.Split(x, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " \t\r")
		}
		return strings.TrimRight(strings.Join(lines, "\n"), "\n")
	}
	pattern, s = norm(pattern), norm(s)
	parts := strings.Split(pattern, "…")
	if len(parts) == 1 {
		return s == pattern
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

var skipLine = regexp.MustCompile(`^\s+(\d+)  (.+)  \[([a-z0-9-, ]+)\]$`)
var skipHeader = regexp.MustCompile(`^skipped (\d+) tests?, for (\d+) reasons? \(go test -v \./\.\.\. shows each\):$`)

// checkTestSummary checks the summary the README shows: .ci/run runs the
// same command, every reason is the message of a t.Skip in the code, and
// the counts add up.
func checkTestSummary(t *testing.T, line int, shown string) {
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), testSummaryCmd) {
		t.Errorf("README.md:%d: .ci/run does not run %q", line, testSummaryCmd)
	}
	if shown == "" {
		t.Fatalf("README.md:%d: no ```text block shows the summary after %q", line, testSummaryCmd)
	}
	code := goSources(t)
	lines := strings.Split(shown, "\n")
	i := 0
	for i < len(lines) && !strings.HasPrefix(lines[i], "skipped ") {
		i++
	}
	if i == len(lines) {
		t.Fatalf("README.md:%d: the summary shows no \"skipped …\" line", line)
	}
	h := skipHeader.FindStringSubmatch(lines[i])
	if h == nil {
		t.Fatalf("README.md:%d: %q is not testsummary's header", line, lines[i])
	}
	tests, reasons := 0, 0
	for _, l := range lines[i+1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := skipLine.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("README.md:%d: %q is not a line of testsummary's", line, l)
			continue
		}
		n, _ := strconv.Atoi(m[1])
		tests += n
		reasons++
		if !strings.Contains(code, strconv.Quote(m[2])) {
			t.Errorf("README.md:%d: no test skips with %q", line, m[2])
		}
	}
	if fmt.Sprint(tests) != h[1] || fmt.Sprint(reasons) != h[2] {
		t.Errorf("README.md:%d: the summary says %s tests for %s reasons; its lines give %d for %d", line, h[1], h[2], tests, reasons)
	}
}

// goSources is the text of the module's Go files, for finding messages.
func goSources(t *testing.T) string {
	var sb strings.Builder
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != "../..") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sb.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// checkCommandsList: the README's list of commands is the binary's.
func (r *readmeRun) checkCommandsList(t *testing.T, fences []*fence) {
	out, err := exec.Command(filepath.Join(r.bin, "textbook-rag"), "help").Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "  textbook-rag ") {
			want = append(want, strings.TrimSpace(l))
		}
	}
	output := map[*fence]bool{}
	for _, f := range fences {
		if f.lang == "sh" && f.after != nil {
			output[f.after] = true
		}
	}
	for _, f := range fences {
		if f.lang != "text" || output[f] || len(f.body) == 0 || !strings.HasPrefix(strings.TrimSpace(f.body[0]), "textbook-rag ") {
			continue
		}
		var got []string
		for _, l := range f.body {
			got = append(got, strings.TrimSpace(l))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("README.md:%d: the commands list is not `textbook-rag help`'s:\nREADME:\n%s\nhelp:\n%s", f.line, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		return
	}
	t.Error("README.md has no ```text block listing the commands")
}

// flagHelp is one flag as a command's -h shows it.
type flagHelp struct{ env, def string }

var (
	flagName   = regexp.MustCompile(`^  -([a-z0-9-]+)`)
	flagEnv    = regexp.MustCompile(`\(env ([A-Z0-9_]+)\)`)
	flagDef    = regexp.MustCompile(`\(default "?(.*?)"?\)$`)
	tableRow   = regexp.MustCompile("^\\| `--([a-z0-9-]+)` \\| ([^|]*) \\| ([^|]*) \\| [^|]* \\|$")
	configHead = "| flag | environment | default | meaning |"
)

// checkConfigTable: every flag that has an environment variable is in the
// table of docs/configuration.md, with its variable and its default, and
// the table has no other.
func (r *readmeRun) checkConfigTable(t *testing.T, page string) {
	flags := map[string]flagHelp{}
	for _, command := range []string{"ingest", "ask", "eval", "fit", "serve", "calibrate", "report"} {
		cmd := exec.Command(filepath.Join(r.bin, "textbook-rag"), command, "-h")
		for _, kv := range r.env {
			if !strings.HasPrefix(kv, "OPENAI_BASE_URL=") && !strings.HasPrefix(kv, "TEXTBOOK_RAG_MODEL=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s -h: %v\n%s", command, err, out)
		}
		lines := strings.Split(string(out), "\n")
		for i := 0; i+1 < len(lines); i++ {
			m := flagName.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			help := strings.TrimSpace(lines[i+1])
			e := flagEnv.FindStringSubmatch(help)
			if e == nil {
				continue
			}
			var def string
			if d := flagDef.FindStringSubmatch(help); d != nil {
				def = strings.Replace(d[1], r.home, "~", 1)
			}
			flags[m[1]] = flagHelp{env: e[1], def: def}
		}
	}
	start := strings.Index(page, configHead)
	if start < 0 {
		t.Fatalf("%s has no configuration table (%s)", configPath, configHead)
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(page[start:], "\n")[2:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		m := tableRow.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("configuration table: %q is not a row of `--flag` | env | default | meaning", l)
			continue
		}
		name, envCell, defCell := m[1], m[2], strings.ReplaceAll(m[3], "`", "")
		seen[name] = true
		f, ok := flags[name]
		if !ok {
			t.Errorf("configuration table: --%s is no command's flag with an environment variable", name)
			continue
		}
		if !strings.Contains(envCell, "`"+f.env+"`") {
			t.Errorf("configuration table: --%s's variable is %s, the table says %s", name, f.env, envCell)
		}
		if f.def != "" && !strings.Contains(defCell, f.def) {
			t.Errorf("configuration table: --%s's default is %q, the table says %q", name, f.def, defCell)
		}
	}
	for name, f := range flags {
		if !seen[name] {
			t.Errorf("configuration table: --%s (env %s) is missing", name, f.env)
		}
	}
}

// sizedOpenAI is fakeOpenAI with embeddings of the dimension the command
// being run configures.
type sizedOpenAI struct {
	fakeOpenAI
	dim atomic.Int64
}

func (f *sizedOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/embeddings" {
		f.fakeOpenAI.ServeHTTP(w, r)
		return
	}
	var body struct {
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var data []string
	for i, in := range body.Input {
		vec, _ := json.Marshal(bagVectorDim(in, int(f.dim.Load())))
		data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":%s}`, i, vec))
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"object":"list","model":"m","data":[%s],"usage":{"prompt_tokens":1,"total_tokens":1}}`, strings.Join(data, ","))
}

func copyEnv(env map[string]string) map[string]string {
	out := make(map[string]string, len(env))
	for k, v := range env {
		out[k] = v
	}
	return out
}

func envList(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}
