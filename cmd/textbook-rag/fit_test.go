package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fit command on the bundled sample book: it writes a model the
// answerer accepts, the same bytes twice, and eval --books runs the
// leave-one-book-out table on it.
func TestFitIsReproducible(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	root := filepath.Join(wd, "..", "..")
	books := filepath.Join(dir, "books.tsv")
	line := filepath.Join(root, "sample", "questions.jsonl") + "\t" + filepath.Join(root, "sample", "docs") + "\n"
	if err := os.WriteFile(books, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	var models [2][]byte
	for i := range models {
		out := filepath.Join(dir, "model.json")
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"fit", "--books", books, "--out", out}, &stdout, &stderr); code != 0 {
			t.Fatalf("fit exit %d: %s", code, stderr.String())
		}
		if !strings.Contains(stdout.String(), "threshold") {
			t.Errorf("fit output: %s", stdout.String())
		}
		models[i], _ = os.ReadFile(out)
	}
	if !bytes.Equal(models[0], models[1]) {
		t.Fatal("two fits wrote different models")
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"eval", "--books", books}, &stdout, &stderr); code != 2 {
		t.Errorf("leave-one-book-out of one book: exit %d, want 2", code)
	}
	// The sample twice: each copy is judged by a model fitted on the other.
	if err := os.WriteFile(books, []byte(line+line), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"eval", "--books", books}, &stdout, &stderr); code != 0 {
		t.Fatalf("eval --books exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "docs ") || !strings.Contains(stdout.String(), "mean") {
		t.Errorf("leave-one-book-out table:\n%s", stdout.String())
	}
}

func TestFitNeedsBooks(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"fit"}, &stdout, &stderr); code != 2 {
		t.Errorf("exit %d, want 2: %s", code, stderr.String())
	}
	if code := run(context.Background(), []string{"fit", "--books", filepath.Join(t.TempDir(), "none.tsv")}, &stdout, &stderr); code != 1 {
		t.Errorf("missing books file: exit %d, want 1", code)
	}
}

// With a fields.tsv beside the books file, eval --books also judges each
// field's books by a model fitted on the other fields' books, and gives
// the mean over the fields.
func TestEvalBooksLeaveOneFieldOut(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping three ingests of the sample book")
	}
	dir := t.TempDir()
	wd, _ := os.Getwd()
	root := filepath.Join(wd, "..", "..")
	var books, fields strings.Builder
	for i, field := range []string{"robotics", "robotics", "biology"} {
		name := []string{"one", "two", "three"}[i]
		if err := os.CopyFS(filepath.Join(dir, name), os.DirFS(filepath.Join(root, "sample", "docs"))); err != nil {
			t.Fatal(err)
		}
		books.WriteString(filepath.Join(root, "sample", "questions.jsonl") + "\t" + name + "\n")
		fields.WriteString(name + "\t" + field + "\n")
	}
	os.WriteFile(filepath.Join(dir, "books.tsv"), []byte(books.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "fields.tsv"), []byte(fields.String()), 0o644)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"eval", "--books", filepath.Join(dir, "books.tsv")}, &stdout, &stderr); code != 0 {
		t.Fatalf("eval --books exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	lobo, lofo, ok := strings.Cut(out, "== leave-one-field-out")
	if !ok || !strings.Contains(lobo, "== leave-one-book-out") {
		t.Fatalf("want a leave-one-book-out table, then a leave-one-field-out one:\n%s", out)
	}
	for _, table := range []string{lobo, lofo} {
		for _, row := range []string{"one ", "two ", "three ", "mean ", "mean over 2 fields "} {
			if !strings.Contains(table, "\n"+row) {
				t.Errorf("no %q row in\n%s", row, table)
			}
		}
	}
}
