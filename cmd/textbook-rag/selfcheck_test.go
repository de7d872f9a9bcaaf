package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/textbook-rag/rag/eval"
)

// definitionsBook writes a book that defines n distinct made-up terms in
// bold, one section each, and returns its folder.
func definitionsBook(t *testing.T, n int) string {
	t.Helper()
	syl := []string{"ka", "ro", "mi", "te", "lu", "son", "var", "pel", "dun", "fi"}
	var b strings.Builder
	b.WriteString("# Parts\n\nThe parts of the frame, one by one.\n\n")
	for i := range n {
		term := "Z"
		for j, k := i, 0; k < 4; j, k = j/len(syl), k+1 {
			term += syl[j%len(syl)]
		}
		fmt.Fprintf(&b, "## The %s\n\nA **%s** is a small part that joins the rods of the frame number %d together.\n\n", term, term, i)
	}
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "parts.md"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return docs
}

func readSelfCheckFile(t *testing.T, dir string) storedCheck {
	t.Helper()
	st, ok := readStoredCheck(dir)
	if !ok {
		t.Fatalf("no self-check in %s", dir)
	}
	return st
}

// The self-check asks a bounded sample of a book that defines many terms,
// and keeps the result with the index: a start with the index current
// reuses it, a change of thresholds computes it again.
func TestSelfCheckBoundedAndKept(t *testing.T) {
	n := eval.MaxSelfCheckQuestions * 2
	docs := definitionsBook(t, n)
	data := t.TempDir()
	code, out, errOut := runCmd(t, "ingest", "--data", data, "--docs", docs)
	if code != 0 {
		t.Fatal(errOut)
	}
	_, m := startService(t, func(c *Config) { c.Docs, c.Data = docs, data })
	st := readSelfCheckFile(t, m.Dir)
	if st.Questions > eval.MaxSelfCheckQuestions || st.Derived < n {
		t.Fatalf("self-check asked %d of %d derived questions, want at most %d of %d", st.Questions, st.Derived, eval.MaxSelfCheckQuestions, n)
	}
	if !strings.Contains(out, fmt.Sprintf("%d questions derived from the book's definitions (a sample of the %d it gives)", st.Questions, st.Derived)) {
		t.Errorf("ingest's line does not say it sampled:\n%s", out)
	}

	// A mark no computation gives shows whether the next start reused it.
	marked := st
	marked.Own, marked.Other = 1, 2
	if err := saveSelfCheck(m.Dir, marked); err != nil {
		t.Fatal(err)
	}
	_, m2 := startService(t, func(c *Config) { c.Docs, c.Data = docs, data })
	if m2.SelfCheck != marked.SelfCheck {
		t.Errorf("a start with the index current gave %+v, want the kept %+v", m2.SelfCheck, marked.SelfCheck)
	}
	_, m3 := startService(t, func(c *Config) { c.Docs, c.Data = docs, data; c.Tutor.ConfidentThreshold = 0.75 })
	if m3.SelfCheck == marked.SelfCheck {
		t.Errorf("new thresholds reused the kept self-check %+v", m3.SelfCheck)
	}
	var raw map[string]any
	b, _ := os.ReadFile(filepath.Join(m.Dir, selfCheckFile))
	if err := json.Unmarshal(b, &raw); err != nil || raw["key"] == "" || raw["own_section"] == nil {
		t.Errorf("stored self-check %s (%v)", b, err)
	}
}
