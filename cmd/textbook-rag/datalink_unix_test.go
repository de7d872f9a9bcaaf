//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/textbook-rag/rag/datadir"
)

// An index.json linked to /dev/zero (or to any file) is not read through
// the link: the start rebuilds the index with a warning that says why,
// where it read forever and died out of memory.
func TestLinkedIndexIsRebuilt(t *testing.T) {
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("# A\n\nGears turn wheels. A gear has teeth.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Docs, cfg.Data = docs, filepath.Join(t.TempDir(), "data")
	first, err := ingest(t.Context(), cfg, io.Discard, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(first.Dir, datadir.FileName)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", file); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	done := make(chan error, 1)
	var in ingested
	go func() {
		var err error
		in, err = ingest(t.Context(), cfg, &warn, nil, false)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still reading the index after 20 s")
	}
	if !in.Wrote || len(in.Index.Chunks) != 1 {
		t.Errorf("wrote %v, %d chunks; want the index rebuilt", in.Wrote, len(in.Index.Chunks))
	}
	if want := "warning: " + file + ": not served: read index.json: not a regular file"; !strings.Contains(warn.String(), want) {
		t.Errorf("warnings %q, want %q", warn.String(), want)
	}
	if info, err := os.Lstat(file); err != nil || !info.Mode().IsRegular() {
		t.Errorf("index after the rebuild: %v, %v", info, err)
	}
}
