package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/answer"
	"github.com/textbook-rag/rag/internal/sharedtest"
)

// Failure patterns seen on real course sites, each on a small book of
// our own in the same shape (testdata/patterns, a JavaScript primer),
// asked through the real flow with the embedded model's weights. What is
// under test is the section the answerer picks, so the answerer quotes
// its pick whatever its confidence (threshold 0); whether a tiny book
// gives it the confidence to answer is the threshold's business.
func TestFailurePatternsOfRealSites(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Docs, cfg.Data, cfg.RefusalLog = "testdata/patterns", t.TempDir(), os.DevNull
	app := NewMain(cfg, io.Discard)
	if err := app.Open(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	defer app.Close()

	// Operators are words of the question: == and === are what it asks,
	// and the book explains both, so the question is no empty_retrieval
	// ("not covered in the course materials") with the shipped model.
	q := "What is the difference between == and ===?"
	if resp := ask(t, app, q); resp.WasRefusal && *resp.RefusalReason == rag.EmptyRetrieval {
		t.Errorf("%q refused as empty_retrieval", q)
	}

	m := *answer.DefaultModel()
	m.Threshold = 0
	app.Answerer.SetModel(&m)
	tests := []struct {
		name, q string
		// page is the page the pick must be on; says what its quote holds.
		page, says string
	}{
		// A heading that names one word of the question ("Declare", on
		// the Functions page) must not beat the page whose title names
		// the subject.
		{"page title over a heading", "How do I declare a variable in JavaScript?", "variables", "let count"},
		{"symbols", q, "equality", "==="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ask(t, app, tt.q)
			if resp.WasRefusal {
				t.Fatalf("%q refused: %s", tt.q, *resp.RefusalReason)
			}
			if len(resp.Sources) == 0 || resp.Sources[0].Path != tt.page {
				t.Errorf("%q: sources %+v, want the %s page first", tt.q, resp.Sources, tt.page)
			}
			if !strings.Contains(resp.Answer, tt.says) {
				t.Errorf("%q: the answer does not say %q:\n%s", tt.q, tt.says, resp.Answer)
			}
		})
	}

	// An off-topic question is refused, and no section is offered after
	// the refusal: the places offered are only those the retriever is
	// confident hold the question's subject.
	t.Run("no unrelated links", func(t *testing.T) {
		app.Answerer.SetModel(answer.DefaultModel())
		q := "What is the capital of Canada?"
		if resp := ask(t, app, q); !resp.WasRefusal {
			t.Fatalf("%q answered: %s", q, resp.Answer)
		}
		hits, err := app.Search().Search(t.Context(), q, widgetLinks)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.Score >= cfg.Tutor.ConfidentThreshold {
				t.Errorf("%q: section %q would be offered at %.2f", q, h.Heading, h.Score)
			}
		}
	})
}

// The course's own sample question is answered on the first shared
// robotics textbook: its "Topics" section and its glossary entry both
// define a topic, and the book's marked definition answers where the
// model alone is unsure.
func TestROS2TopicAnsweredOnTheSharedTextbook(t *testing.T) {
	docs := filepath.Join("..", "..", "..", "shared", "corpus", "physical-ai-textbook")
	sharedtest.Require(t, docs)
	cfg := DefaultConfig()
	cfg.Docs, cfg.Data, cfg.RefusalLog = docs, t.TempDir(), os.DevNull
	app := NewMain(cfg, io.Discard)
	if err := app.Open(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	resp := ask(t, app, "What is a ROS 2 topic?")
	if resp.WasRefusal {
		t.Fatalf("refused: %s", *resp.RefusalReason)
	}
	if len(resp.Sources) == 0 || resp.Sources[0].SectionHeading != "Topics" || !strings.Contains(resp.Answer, "named channels") {
		t.Errorf("answered from %+v:\n%s", resp.Sources, resp.Answer)
	}
}

func ask(t *testing.T, app *Main, q string) rag.ChatResponse {
	t.Helper()
	req := rag.ChatRequest{Question: q, SessionID: "8b3f8a32-7a36-4c8e-9a52-0d3f6a0d2f11"}
	if err := req.Normalize(); err != nil {
		t.Fatal(err)
	}
	resp, err := app.Tutor.Ask(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
