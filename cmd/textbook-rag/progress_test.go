package main

import (
	"strings"
	"testing"
	"time"
)

// A long ingest's status line shows the pages read of all, the chunks so
// far, the time and the step, and keeps being redrawn while one page
// takes long, so the terminal never looks stuck; Finish ends the line.
func TestProgressLine(t *testing.T) {
	var out lockedBuffer
	p := newProgressLine(&out, 5*time.Millisecond)
	p.Chunks(12)
	p.Pages(1, 3, "intro.md")
	// The second page is slow: the line is redrawn meanwhile.
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "1/3 pages, 12 chunks") < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := strings.Count(out.String(), "1/3 pages, 12 chunks"); n < 4 {
		t.Errorf("the line was drawn %d times during a slow page, want it redrawn:\n%q", n, out.String())
	}
	p.Step("self-check")
	p.Finish()
	got := out.String()
	if !strings.Contains(got, "\r\033[K1/3 pages, 12 chunks, ") || !strings.Contains(got, ": read intro.md") || !strings.Contains(got, ": self-check") || !strings.HasSuffix(got, "\n") {
		t.Errorf("status line %q", got)
	}
	time.Sleep(20 * time.Millisecond)
	if out.String() != got {
		t.Errorf("drawn after Finish")
	}
}

// Piped, ingest prints no status line.
func TestIngestQuietWhenPiped(t *testing.T) {
	code, _, errOut := runCmd(t, "ingest", "--data", t.TempDir())
	if code != 0 {
		t.Fatal(errOut)
	}
	if strings.Contains(errOut, "\r") || strings.Contains(errOut, "\033[") {
		t.Errorf("ingest piped printed a status line: %q", errOut)
	}
}
