package main

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/textbook-rag/rag/datadir"
)

// ask keeps the refusal log whole but off the reader's terminal: by
// default it goes to a file in the book's folder of the data directory,
// "-" puts it on stderr, and a question answered creates no file.
func TestAskRefusalLog(t *testing.T) {
	data := t.TempDir()
	logFile := filepath.Join(datadir.BookDir(data, datadir.SampleSource), askRefusalLog)
	if code, _, errOut := runCmd(t, "ingest", "--data", data); code != 0 {
		t.Fatal(errOut)
	}

	code, out, errOut := runCmd(t, "ask", "--data", data, "How does a LiDAR measure distance?")
	if code != 0 || strings.Contains(out, "(refused") {
		t.Fatalf("answerable question: exit %d: %s %s", code, out, errOut)
	}
	if _, err := os.Stat(logFile); err == nil {
		t.Errorf("an answer created the refusal log")
	}

	code, out, errOut = runCmd(t, "ask", "--data", data, "What is a good recipe for banana bread?")
	if code != 0 || !strings.Contains(out, "(refused: empty_retrieval)") {
		t.Fatalf("refused question: exit %d: %s %s", code, out, errOut)
	}
	if strings.Contains(out+errOut, `"event"`) {
		t.Errorf("the refusal log line is on the terminal:\nstdout %s\nstderr %s", out, errOut)
	}
	b, err := os.ReadFile(logFile)
	if err != nil || strings.Count(string(b), "\n") != 1 || !strings.Contains(string(b), `"refusal_reason":"empty_retrieval"`) {
		t.Errorf("refusal log %s: %q, %v; want the one refusal", logFile, b, err)
	}

	_, _, errOut = runCmd(t, "ask", "--data", data, "--refusal-log", "-", "What is a good recipe for banana bread?")
	if !strings.Contains(errOut, `"refusal_reason":"empty_retrieval"`) {
		t.Errorf("--refusal-log - : stderr %q, want the log line", errOut)
	}
}

// -h prints the command's usage and flags and exits 0, with no error
// line after them.
func TestHelpFlag(t *testing.T) {
	for _, cmd := range []string{"ingest", "ask", "eval", "fit", "serve", "calibrate", "report"} {
		for _, h := range []string{"-h", "--help"} {
			code, out, errOut := runCmd(t, cmd, h)
			all := out + errOut
			if code != 0 || strings.Contains(all, "help requested") || !strings.Contains(all, "Usage:\n  textbook-rag "+cmd) || !strings.Contains(all, "Flags:") {
				t.Errorf("%s %s: exit %d, output:\n%s", cmd, h, code, all)
			}
			if !strings.HasSuffix(strings.TrimRight(all, "\n"), ")") && !strings.HasSuffix(strings.TrimRight(all, "\n"), `"`) {
				t.Errorf("%s %s ends with %q, want the last flag's help", cmd, h, all[max(0, len(all)-60):])
			}
		}
	}
}

// --docs given a file (a table of contents, a config) fails with the
// folder to give instead, and writes nothing.
func TestDocsFile(t *testing.T) {
	dir := t.TempDir()
	summary := filepath.Join(dir, "SUMMARY.md")
	if err := os.WriteFile(summary, []byte("# Summary\n\n- [Intro](intro.md)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	code, _, errOut := runCmd(t, "ingest", "--docs", summary, "--data", data)
	if code != 1 || !strings.Contains(errOut, "not a directory: --docs names the book's folder, here perhaps "+dir) {
		t.Errorf("ingest --docs SUMMARY.md: exit %d: %s", code, errOut)
	}
	if entries, _ := os.ReadDir(data); len(entries) != 0 {
		t.Errorf("a failed ingest wrote %d entries into the data directory", len(entries))
	}
}

// A port in use is named with the way to choose another.
func TestServePortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, errOut := runCmd(t, "serve", "--data", t.TempDir(), "--addr", ln.Addr().String(), "--refusal-log", os.DevNull)
	if code != 1 || !strings.Contains(errOut, "address already in use") || !strings.Contains(errOut, "--addr") || !strings.Contains(errOut, "PORT") {
		t.Errorf("serve on a port in use: exit %d: %s", code, errOut)
	}
}

// The server answers /favicon.ico with its icon, not a 404.
func TestServeFavicon(t *testing.T) {
	base, _ := startService(t, nil)
	res, err := http.Get(base + "/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/x-icon" {
		t.Errorf("GET /favicon.ico: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
}

// ingest runs the self-check on the book it read, prints it, and keeps it
// in the book's folder, where the course report finds it.
func TestIngestSelfCheck(t *testing.T) {
	data := t.TempDir()
	code, out, errOut := runCmd(t, "ingest", "--data", data)
	if code != 0 {
		t.Fatal(errOut)
	}
	if !strings.Contains(out, "self-check: ") || !strings.Contains(out, "questions derived from the book's definitions") {
		t.Errorf("ingest printed no self-check:\n%s", out)
	}
	code, out, errOut = runCmd(t, "report", "--data", data, "--json")
	if code != 0 {
		t.Fatal(errOut)
	}
	if !strings.Contains(out, `"self_check": {`) || !strings.Contains(out, `"own_section"`) {
		t.Errorf("report has no self-check:\n%s", out)
	}
}

// ask, like the widget, follows an insufficient_context refusal with the
// sections the book discusses the question in (the confident ones of the
// site search), as page paths and anchors; an off-domain refusal gets
// none.
func TestAskPointsWhereTheBookDiscussesIt(t *testing.T) {
	data := t.TempDir()
	if code, _, errOut := runCmd(t, "ingest", "--data", data); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := runCmd(t, "ask", "--data", data, "How many topics can one ROS 2 node publish?")
	if code != 0 || !strings.Contains(out, "(refused: insufficient_context)") {
		t.Fatalf("exit %d: %s %s; want the insufficient_context refusal", code, out, errOut)
	}
	_, where, ok := strings.Cut(out, "Where the book discusses this:\n")
	if !ok || !strings.Contains(where, "  - ") || !strings.Contains(where, "#") {
		t.Errorf("no links after the refusal:\n%s", out)
	}
	_, out, _ = runCmd(t, "ask", "--data", data, "What is a good recipe for banana bread?")
	if strings.Contains(out, "Where the book discusses this") {
		t.Errorf("an off-domain refusal lists sections:\n%s", out)
	}
}
