package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/textbook-rag/rag/datadir"
)

// TestServeHistoryUnavailable: a history store that cannot be opened stops
// `serve` with exit status 1 and one line naming the store and the cause,
// never a panic.
func TestServeHistoryUnavailable(t *testing.T) {
	dirAsFile := t.TempDir()
	if err := os.MkdirAll(filepath.Join(datadir.BookDir(dirAsFile, datadir.SampleSource), historyFile), 0o755); err != nil {
		t.Fatal(err)
	}
	type store struct {
		name  string
		data  string
		dbURL string
		want  []string // in the error line
	}
	tests := []store{
		{"sqlite file is a directory", dirAsFile, "", []string{"sqlite", "history.db", "directory"}},
		{"postgres refuses connections", t.TempDir(), "postgres://postgres@127.0.0.1:1/x?sslmode=disable", []string{"postgres", "127.0.0.1:1", "refused"}},
	}
	if u := os.Getenv("DATABASE_URL"); u != "" {
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatalf("DATABASE_URL: %v", err)
		}
		pu.Path = "/textbook_rag_no_such_database"
		tests = append(tests, store{"postgres database does not exist", t.TempDir(), pu.String(), []string{"postgres", "textbook_rag_no_such_database", "does not exist"}})
	} else {
		t.Log("DATABASE_URL is not set: the unknown-database case is skipped")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DATABASE_URL", tt.dbURL)
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"serve", "--data", tt.data, "--addr", "127.0.0.1:0", "--refusal-log", os.DevNull}, &stdout, &stderr)
			out := strings.TrimSpace(stderr.String())
			if code != 1 {
				t.Fatalf("exit status %d, want 1; stderr:\n%s", code, out)
			}
			if strings.Count(out, "\n") != 0 {
				t.Errorf("want one line, got:\n%s", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("stderr %q does not mention %q", out, w)
				}
			}
		})
	}
}

// serve reads the book once: the index and the reader's pages come from
// the same read, so a book edited (or removed) after that read changes
// neither, and both show the one version.
func TestServeReadsTheBookOnce(t *testing.T) {
	docs := t.TempDir()
	page := func(v string) []byte { return []byte("# Alpha\n\nThe " + v + " text about robot joints.\n") }
	if err := os.WriteFile(filepath.Join(docs, "alpha.md"), page("FIRST"), 0o644); err != nil {
		t.Fatal(err)
	}
	afterBookRead = func() {
		os.WriteFile(filepath.Join(docs, "alpha.md"), page("SECOND, edited"), 0o644)
		os.WriteFile(filepath.Join(docs, "beta.md"), page("BETA"), 0o644)
	}
	t.Cleanup(func() { afterBookRead = nil })
	base, m := startService(t, func(c *Config) { c.Docs = docs })
	var indexed []string
	for _, c := range m.Index.Chunks {
		indexed = append(indexed, c.Text)
	}
	if got := strings.Join(indexed, " "); !strings.Contains(got, "FIRST") || strings.Contains(got, "SECOND") || strings.Contains(got, "BETA") {
		t.Errorf("index holds %q, want the first version only", got)
	}
	if err := os.RemoveAll(docs); err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(base + "/docs/alpha")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "FIRST") || strings.Contains(string(body), "SECOND") {
		t.Errorf("page: status %d, want 200 with the indexed version:\n%s", res.StatusCode, body)
	}
	if res, err := http.Get(base + "/docs/beta"); err != nil || res.StatusCode != 404 {
		t.Errorf("a page added after the read: %v %v, want 404", res.StatusCode, err)
	}
}
