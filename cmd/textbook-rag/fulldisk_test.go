package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag/internal/smalldisk"
)

// On a full disk (the data directory and the refusal log on a small
// tmpfs, then filled) the health check says the history cannot be
// written, chats are 503 with Retry-After rather than 500, every refusal
// the reader received is in the refusal log whole or counted as a log
// failure, and once space is freed everything recovers without a restart.
func TestServeFullDisk(t *testing.T) {
	data := smalldisk.Mount(t, 32<<20)
	logPath := filepath.Join(data, "refusals.log")
	base, _ := startService(t, func(c *Config) { c.Data, c.RefusalLog = data, logPath })
	delivered := 0 // refusals the reader received
	refuse := func() int {
		body := fmt.Sprintf(`{"question":"What is the best recipe for banana bread?","session_id":%q}`, uuid.NewString())
		resp, data := postJSON(t, base+"/api/chat", body)
		if resp.StatusCode == 200 {
			var r struct {
				WasRefusal bool `json:"was_refusal"`
			}
			json.Unmarshal(data, &r)
			if !r.WasRefusal {
				t.Fatalf("an off-domain question was answered: %s", data)
			}
			delivered++
		}
		return resp.StatusCode
	}
	refuse()
	health := func() (int, string) {
		resp, err := http.Get(base + "/health")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	// A question the book answers; should the answerer refuse it, the
	// refusal is delivered and logged like any other.
	ask := func() (*http.Response, []byte) {
		body := fmt.Sprintf(`{"question":"How does a LiDAR measure distance?","session_id":%q}`, uuid.NewString())
		resp, data := postJSON(t, base+"/api/chat", body)
		if resp.StatusCode == 200 && strings.Contains(string(data), `"was_refusal":true`) {
			delivered++
		}
		return resp, data
	}
	if code, body := health(); code != 200 {
		t.Fatalf("health before: %d %s", code, body)
	}

	free := smalldisk.Fill(t, data)
	// The store may have room left in pages it already holds: ask until a
	// write fails.
	resp, data1 := ask()
	for i := 0; i < 500 && resp.StatusCode == 200; i++ {
		refuse()
		resp, data1 = ask()
	}
	var e struct{ Error, Message string }
	json.Unmarshal(data1, &e)
	if resp.StatusCode != 503 || e.Error != "unavailable" || !strings.Contains(e.Message, "disk is full") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("chat on a full disk: %d %s, want 503 unavailable saying the disk is full, with Retry-After", resp.StatusCode, data1)
	}
	if code, body := health(); code != 503 || !strings.Contains(body, "disk is full") {
		t.Errorf("health on a full disk: %d %s, want 503 saying the disk is full", code, body)
	}

	if code := refuse(); code != 503 {
		t.Errorf("refusal on a full disk: %d, want 503 (its history cannot be written)", code)
	}

	free()
	if code, body := health(); code != 200 {
		t.Errorf("health once space is back: %d %s", code, body)
	}
	if resp, body := ask(); resp.StatusCode != 200 {
		t.Errorf("chat once space is back: %d %s", resp.StatusCode, body)
	}
	if code := refuse(); code != 200 {
		t.Errorf("refusal once space is back: %d", code)
	}

	// Every line whole; lines and counted failures add up to the
	// refusals delivered.
	lines := refusalLogLines(t, logPath)
	failed := metric(t, base, "refusal_log_errors_total")
	t.Logf("%d refusals delivered: %d logged, %d log writes failed", delivered, len(lines), failed)
	if len(lines)+failed != delivered {
		t.Errorf("refusal log: %d lines + %d failures counted, want the %d refusals delivered", len(lines), failed, delivered)
	}
}

// refusalLogLines reads the refusal log's lines, checking each is whole
// JSON.
func refusalLogLines(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("refusal log line is not whole JSON: %q", l)
		}
	}
	return lines
}

// metric reads a counter without labels from /metrics.
func metric(t *testing.T, base, name string) int {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, l := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			return int(n)
		}
	}
	return 0
}

// A refusal log on a full disk while the history can still write: every
// refusal the reader receives is in the log whole or counted in
// refusal_log_errors_total, and logging resumes once space is freed.
func TestServeRefusalLogFullDisk(t *testing.T) {
	disk := smalldisk.Mount(t, 256<<10)
	logPath := filepath.Join(disk, "refusals.log")
	base, _ := startService(t, func(c *Config) { c.RefusalLog = logPath })
	refuse := func() {
		t.Helper()
		body := fmt.Sprintf(`{"question":"What is the best recipe for banana bread?","session_id":%q}`, uuid.NewString())
		resp, data := postJSON(t, base+"/api/chat", body)
		if resp.StatusCode != 200 || !strings.Contains(string(data), `"was_refusal":true`) {
			t.Fatalf("off-domain question: %d %s, want a refusal", resp.StatusCode, data)
		}
	}
	const before, during, after = 5, 200, 5
	for range before {
		refuse()
	}
	free := smalldisk.Fill(t, disk)
	for range during {
		refuse()
	}
	failedDuring := metric(t, base, "refusal_log_errors_total")
	free()
	for range after {
		refuse()
	}

	lines := refusalLogLines(t, logPath)
	failed := metric(t, base, "refusal_log_errors_total")
	t.Logf("%d refusals delivered: %d logged whole, %d log writes failed", before+during+after, len(lines), failed)
	if failedDuring == 0 {
		t.Errorf("no log write failed on the full disk: the test did not fill it")
	}
	if failed != failedDuring {
		t.Errorf("log writes failed after space was freed: %d, then %d", failedDuring, failed)
	}
	if len(lines)+failed != before+during+after {
		t.Errorf("%d lines + %d failures, want the %d refusals delivered", len(lines), failed, before+during+after)
	}
}

// stderr on a full disk, the refusal log's default destination shared
// with the access and application logs, as a file opened by `2>FILE`:
// every line of it is whole JSON, none glued to another, no hole left;
// every refusal the reader received is in it or counted in
// refusal_log_errors_total; failed log writes are counted in
// log_write_errors_total; logging resumes once space is freed.
func TestServeStderrFullDisk(t *testing.T) {
	disk := smalldisk.Mount(t, 256<<10)
	stderr, err := os.OpenFile(filepath.Join(disk, "stderr.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	base, _, stop := startServiceLogging(t, func(c *Config) { c.RefusalLog = "" }, stderr)
	defer stop()
	refuse := func() {
		t.Helper()
		body := fmt.Sprintf(`{"question":"What is the best recipe for banana bread?","session_id":%q}`, uuid.NewString())
		resp, data := postJSON(t, base+"/api/chat", body)
		if resp.StatusCode != 200 || !strings.Contains(string(data), `"was_refusal":true`) {
			t.Fatalf("off-domain question: %d %s, want a refusal", resp.StatusCode, data)
		}
	}
	const before, during, after = 5, 300, 5
	for range before {
		refuse()
	}
	free := smalldisk.Fill(t, disk)
	for range during {
		refuse()
	}
	free()
	for range after {
		refuse()
	}

	raw, err := os.ReadFile(stderr.Name())
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(string(raw), 0) {
		t.Error("stderr holds NUL bytes: a removed line left a hole")
	}
	refusals, lines := 0, 0
	for _, l := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		lines++
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Errorf("stderr line is not whole JSON: %.300q", l)
			continue
		}
		if v["event"] == "refusal" {
			refusals++
		}
	}
	failed := metric(t, base, "refusal_log_errors_total")
	logFailed := metric(t, base, "log_write_errors_total")
	t.Logf("%d refusals delivered: %d logged whole, %d counted as failed; %d lines on stderr, %d writes to it failed", before+during+after, refusals, failed, lines, logFailed)
	if refusals+failed != before+during+after {
		t.Errorf("%d refusal lines + %d failures, want the %d refusals delivered", refusals, failed, before+during+after)
	}
	if failed == 0 || logFailed < failed {
		t.Errorf("%d refusal lines and %d writes to stderr counted as failed: the disk did not fill, or failures went uncounted", failed, logFailed)
	}
}
