package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/eval"
	"github.com/textbook-rag/rag/extractive"
	"github.com/textbook-rag/rag/internal/sharedtest"
)

const (
	sharedCorpus    = "../../../shared/corpus/physical-ai-textbook"
	sharedQuestions = "../../../shared/eval/dev-questions.jsonl"
	sampleQuestions = "../../sample/questions.jsonl"
)

// countingGenerator counts calls to the generator it wraps.
type countingGenerator struct {
	rag.Generator
	calls atomic.Int64
}

func (g *countingGenerator) Generate(ctx context.Context, req rag.GenerateRequest, emit func(string) error) (rag.Generated, error) {
	g.calls.Add(1)
	return g.Generator.Generate(ctx, req, emit)
}

// openTestApp opens the wiring of the commands on a book, in a temporary
// data dir, with the refusal log discarded.
func openTestApp(tb testing.TB, docs string) *Main {
	tb.Helper()
	cfg := DefaultConfig()
	cfg.Docs = docs
	cfg.Data = tb.TempDir()
	app := NewMain(cfg, io.Discard)
	if err := app.Open(context.Background(), true); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { app.Close() })
	return app
}

// TestGeneratorNeverCalledOnRefusal runs every question of the sample
// book's and the dev set's question files and checks that no refusal
// called the generator, and every answer called it once.
func TestGeneratorNeverCalledOnRefusal(t *testing.T) {
	forEachQuestionSet(t, func(t *testing.T, docs string, qs []eval.Question) {
		app := openTestApp(t, docs)
		gen := &countingGenerator{Generator: extractive.Generator{}}
		app.Tutor.Extractive = gen
		refusals := 0
		for _, q := range qs {
			req := rag.ChatRequest{Question: q.Question, SelectedText: q.SelectedText, SessionID: uuid.NewString()}
			if err := req.Normalize(); err != nil {
				t.Fatalf("%s: %v", q.ID, err)
			}
			before := gen.calls.Load()
			resp, err := app.Tutor.Ask(context.Background(), req, nil)
			if err != nil {
				t.Fatalf("%s: %v", q.ID, err)
			}
			calls := gen.calls.Load() - before
			if resp.WasRefusal {
				refusals++
				if calls != 0 {
					t.Errorf("%s: refused (%s) after calling the generator %d times", q.ID, *resp.RefusalReason, calls)
				}
				if len(resp.Sources) != 0 {
					t.Errorf("%s: a refusal carries sources", q.ID)
				}
			} else if calls != 1 {
				t.Errorf("%s: answered with %d generator calls, want 1", q.ID, calls)
			}
		}
		if refusals == 0 {
			t.Fatal("no question was refused: the test proves nothing")
		}
		t.Logf("%d questions, %d refusals, 0 generator calls on them", len(qs), refusals)
	})
}

// forEachQuestionSet runs test on the sample book with its questions and on
// the shared textbook with the dev questions, skipping a set whose files
// are absent.
func forEachQuestionSet(t *testing.T, test func(t *testing.T, docs string, qs []eval.Question)) {
	sets := []struct{ name, docs, questions string }{
		{"sample", "", sampleQuestions},
		{"shared", sharedCorpus, sharedQuestions},
	}
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			if set.docs != "" {
				sharedtest.Require(t, set.questions, set.docs)
			}
			qs, err := eval.ReadQuestionsFile(set.questions)
			if err != nil {
				t.Fatal(err)
			}
			test(t, set.docs, qs)
		})
	}
}

// BenchmarkAsk measures the in-process path per question on the shared
// textbook: retrieval score, refusal rules and extractive answer.
func BenchmarkAsk(b *testing.B) { benchmarkAsk(b, "") }

// BenchmarkAskMeaning is BenchmarkAsk with the sentence model of
// TEXTBOOK_RAG_MODEL: a question costs its own embedding (the book's
// texts are embedded before the timer starts), every question as never
// asked before.
func BenchmarkAskMeaning(b *testing.B) {
	model := sentenceModelDir
	if model == "" {
		b.Skip("TEXTBOOK_RAG_MODEL not set: no sentence model to measure (export TEXTBOOK_RAG_MODEL=$(scripts/model))")
	}
	benchmarkAsk(b, model)
}

func benchmarkAsk(b *testing.B, model string) {
	if _, err := os.Stat(sharedQuestions); err != nil {
		b.Skip("shared question set not present")
	}
	qs, err := eval.ReadQuestionsFile(sharedQuestions)
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Docs, cfg.Data, cfg.SentenceModel = sharedCorpus, b.TempDir(), model
	app := NewMain(cfg, io.Discard)
	if err := app.Open(context.Background(), true); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { app.Close() })
	reqs := make([]rag.ChatRequest, len(qs))
	for i, q := range qs {
		reqs[i] = rag.ChatRequest{Question: q.Question, SelectedText: q.SelectedText, SessionID: uuid.NewString()}
		reqs[i].Normalize()
	}
	ctx := context.Background()
	lat := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(reqs) == 0 && app.Meaning != nil {
			app.Meaning.ForgetQueries()
		}
		t0 := time.Now()
		if _, err := app.Tutor.Ask(ctx, reqs[i%len(reqs)], nil); err != nil {
			b.Fatal(err)
		}
		lat[i] = time.Since(t0)
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1000, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1000, "p99-µs")
}

// BenchmarkIngest measures reading, chunking and indexing the shared
// textbook into a fresh data dir.
func BenchmarkIngest(b *testing.B) {
	if _, err := os.Stat(sharedCorpus); err != nil {
		b.Skip("shared textbook not present")
	}
	for i := 0; i < b.N; i++ {
		cfg := DefaultConfig()
		cfg.Docs = sharedCorpus
		cfg.Data = filepath.Join(b.TempDir(), "data")
		if _, err := ingest(b.Context(), cfg, io.Discard, nil, false); err != nil {
			b.Fatal(err)
		}
	}
}
