package datadir

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/textbook-rag/rag"
)

// What is kept under a key is read back under that key only, and not
// once the file changed.
func TestDerived(t *testing.T) {
	dir := t.TempDir()
	kept := map[string][]string{"gear": {"wheel", "tooth"}}
	if err := SaveDerived(dir, "k1", kept); err != nil {
		t.Fatal(err)
	}
	var got map[string][]string
	if err := LoadDerived(dir, "k1", &got); err != nil || len(got["gear"]) != 2 || got["gear"][1] != "tooth" {
		t.Fatalf("LoadDerived = %v, %v", got, err)
	}
	if err := LoadDerived(dir, "k2", &got); err == nil {
		t.Error("read under another key")
	}
	p := filepath.Join(dir, DerivedName)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	i := len(b) - 3 // inside the kept bytes
	b[i] ^= 0x20
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := LoadDerived(dir, "k1", &got); err == nil {
		t.Error("read a changed file")
	}
	if err := LoadDerived(t.TempDir(), "k1", &got); err == nil {
		t.Error("read a file that is not there")
	}
}

// A temp file of derived or kept data left by a killed writer goes once
// it is old; a young one may be a live writer's and stays.
func TestSaveRemovesStaleDerivedTemp(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, DerivedName+".1.tmp")
	staleKept := filepath.Join(dir, AnswererName+".1.tmp")
	fresh := filepath.Join(dir, DerivedName+".2.tmp")
	for _, p := range []string{stale, staleKept, fresh} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * StaleAge)
	for _, p := range []string{stale, staleKept} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Save(t.Context(), dir, rag.Book{Hash: "h"}, oneChunk, SaveOptions{Options: "o"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{stale, staleKept} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the stale temp file %s stayed", filepath.Base(p))
		}
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a young temp file was removed")
	}
}
