package main

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeHistoryUnavailable: a history store that cannot be opened stops
// `serve` with exit status 1 and one line naming the store and the cause,
// never a panic.
func TestServeHistoryUnavailable(t *testing.T) {
	dirAsFile := t.TempDir()
	if err := os.Mkdir(filepath.Join(dirAsFile, "history.db"), 0o755); err != nil {
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
