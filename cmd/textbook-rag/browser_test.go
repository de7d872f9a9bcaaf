package main

import (
	"testing"

	"github.com/textbook-rag/rag/web/browsertest"
)

// TestBrowser drives Debian's Chromium against the real server on the
// sample textbook: an answer with a working source link, "Ask about this"
// on a selected paragraph, an off-domain refusal styled as one, and the
// history after a reload. Screenshots go to $TEXTBOOK_RAG_ARTIFACTS (CI:
// ./artifacts). It skips with a message when no Chromium is installed.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	if browsertest.ChromePath() == "" {
		t.Skip(browsertest.SkipMessage)
	}
	base, _ := startService(t, nil)
	browsertest.RunConfig(t, base, "", browsertest.Config{
		Question:          "How does a LiDAR measure distance?",
		SelectionQuestion: "What does this mean?",
		OffTopicQuestion:  "What is a good recipe for banana bread?",
		StartPath:         "/",
		Viewport:          browsertest.Desktop,
		Prefix:            "serve-",
	})
}
