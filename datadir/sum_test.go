package datadir

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

// saved writes an index of the chunks for the source into a new folder and
// returns the file's bytes.
func saved(t *testing.T, source string, chunks []rag.Chunk) []byte {
	t.Helper()
	dir := t.TempDir()
	book := rag.Book{Title: "B " + source, Hash: "h-" + source, Modules: []rag.Module{{ID: "m", Title: "M"}}}
	if _, err := Save(t.Context(), dir, book, chunks, SaveOptions{Options: "opts", Source: source, Course: "C", Input: "in-" + source}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// edit decodes the index file into fields, changes them, and encodes it
// again: a JSON-valid edit.
func edit(t *testing.T, b []byte, change func(map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	change(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An index edited since it was written does not load; one as written, with
// any text, loads as it was saved.
func TestLoadChecksSum(t *testing.T) {
	ours := []rag.Chunk{{ID: "1", ModuleID: "m", Text: "one <b> & \"two\" \xff"}, {ID: "2", ModuleID: "m", Text: "three"}}
	theirs := []rag.Chunk{{ID: "9", ModuleID: "m", Text: "another book's words"}}
	good := saved(t, "/books/ours", ours)
	other := saved(t, "/books/theirs", theirs)

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), good, 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := Load(dir)
	if err != nil {
		t.Fatalf("the index as written: %v", err)
	}
	if ix.Source != "/books/ours" || len(ix.Chunks) != 2 || ix.Chunks[0].Text != strings.ToValidUTF8(ours[0].Text, "\uFFFD") {
		t.Errorf("loaded %q with %d chunks (%q)", ix.Source, len(ix.Chunks), ix.Chunks[0].Text)
	}

	tampered := map[string][]byte{
		"a chunk's text changed": edit(t, good, func(m map[string]any) {
			m["chunks"].([]any)[1].(map[string]any)["text"] = "three, changed"
		}),
		"no chunks": edit(t, good, func(m map[string]any) { m["chunks"] = []any{} }),
		"another book's index with our source fields": edit(t, other, func(m map[string]any) {
			var o map[string]any
			json.Unmarshal(good, &o)
			for _, k := range []string{"source", "course", "input", "options"} {
				m[k] = o[k]
			}
		}),
		"another book's index with our source fields and sum": edit(t, other, func(m map[string]any) {
			var o map[string]any
			json.Unmarshal(good, &o)
			for _, k := range []string{"source", "course", "input", "options", "sum"} {
				m[k] = o[k]
			}
		}),
		"the sum removed": edit(t, good, func(m map[string]any) { delete(m, "sum") }),
		"a chunk removed": edit(t, good, func(m map[string]any) { m["chunks"] = m["chunks"].([]any)[:1] }),
	}
	for name, b := range tampered {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, FileName), b, 0o644); err != nil {
				t.Fatal(err)
			}
			ix, err := Load(dir)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Load = %v, %v; want ErrCorrupt", ix, err)
			}
			if Current(dir, rag.Book{Hash: "h-/books/ours"}, SaveOptions{Options: "opts", Course: "C", Input: "in-/books/ours"}) {
				t.Error("a tampered index is current")
			}
		})
	}
}

// Save replaces a tampered index of the same book, and the new one loads
// with the book's chunks.
func TestSaveReplacesTampered(t *testing.T) {
	dir := t.TempDir()
	book := rag.Book{Title: "B", Hash: "h"}
	chunks := []rag.Chunk{{ID: "1", Text: "one"}}
	o := SaveOptions{Options: "opts", Source: "/books/ours", Input: "in"}
	if _, err := Save(t.Context(), dir, book, chunks, o); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, FileName)
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, edit(t, b, func(m map[string]any) { m["chunks"] = []any{} }), 0o644); err != nil {
		t.Fatal(err)
	}
	wrote, err := Save(t.Context(), dir, book, chunks, o)
	if err != nil || !wrote {
		t.Fatalf("Save over a tampered index = %v, %v; want a write", wrote, err)
	}
	ix, err := Load(dir)
	if err != nil || !reflect.DeepEqual(ix.Chunks, chunks) {
		t.Fatalf("Load = %v, %v", ix, err)
	}
}

// TestWarningsKept: the warnings of the read that built an index are kept
// with it, under its sum (an edited warning is an edited index), and an
// index without warnings keeps the sum it had before they were kept.
func TestWarningsKept(t *testing.T) {
	dir := t.TempDir()
	book := rag.Book{Title: "B", Hash: "h"}
	warnings := []string{"hugo.toml: 2 content pages in formats that are not read", "content/x.md: page path \"x\" is taken"}
	if _, err := Save(t.Context(), dir, book, oneChunk, SaveOptions{Options: "o", Source: "/b", Input: "in", Warnings: warnings}); err != nil {
		t.Fatal(err)
	}
	ix, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ix.Warnings, warnings) {
		t.Errorf("loaded warnings %q, want %q", ix.Warnings, warnings)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	edited := edit(t, b, func(m map[string]any) { m["warnings"] = []any{"nothing to see"} })
	if err := os.WriteFile(filepath.Join(dir, FileName), edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); !errors.Is(err, ErrCorrupt) {
		t.Errorf("an index whose warnings were edited loads: %v", err)
	}
	plain := stored{Version: formatVersion, Options: "o", Source: "/b"}
	withField := plain
	withField.Warnings = []string{}
	if plain.sum() != withField.sum() {
		t.Error("an index without warnings changed its sum")
	}
}
