package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Ingest hears SIGINT/SIGTERM through its context: a cancelled context
// stops it with the cause instead of reading the book to the end.
func TestIngestStopsWhenCancelled(t *testing.T) {
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("# A\n\nA page.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"ingest", "--docs", docs, "--data", filepath.Join(t.TempDir(), "data")}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("exit %d, stderr %q; want 1 and the cancellation named", code, stderr.String())
	}
}

// A file the loader leaves out is named on stderr with the reason.
func TestIngestWarnsOfSkippedFiles(t *testing.T) {
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("# A\n\nA page.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(docs, "host.md")); err != nil {
		t.Skip("symbolic links not supported here:", err)
	}
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"ingest", "--docs", docs, "--data", filepath.Join(t.TempDir(), "data")}, &stdout, &stderr)
	if code != 0 || !strings.Contains(stderr.String(), "warning: host.md: skipped: a symbolic link") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
