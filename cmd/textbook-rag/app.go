package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/datadir"
	"github.com/textbook-rag/rag/extractive"
	rhttp "github.com/textbook-rag/rag/http"
	"github.com/textbook-rag/rag/lexical"
	"github.com/textbook-rag/rag/markdown"
	"github.com/textbook-rag/rag/sample"
	"github.com/textbook-rag/rag/tutor"
)

// Main is the wiring of every command: the configuration, read once at
// start, and each dependency, built once and wrapped once (with metrics,
// when serving) before the tutor that uses it is built. Close releases
// what it opened.
type Main struct {
	Config Config
	Logger *slog.Logger
	// Metrics, when set before Open, counts the generator's and the
	// embedder's calls.
	Metrics *rhttp.Metrics

	Index   *datadir.Index
	Lexical *lexical.Index
	Tutor   *tutor.Tutor
	// Refusals is the refusal log, written once a refusal is delivered.
	Refusals *tutor.RefusalLog

	// Set by OpenService.
	History rag.History
	Server  *rhttp.Server

	stderr  io.Writer
	checks  []rhttp.Check // health checks of the backends opened
	closers []func() error
}

// NewMain returns the wiring for cfg, logging JSON to stderr.
func NewMain(cfg Config, stderr io.Writer) *Main {
	return &Main{Config: cfg, Logger: slog.New(slog.NewJSONHandler(stderr, nil)), stderr: stderr}
}

// bookFS returns the configured book: a folder, or the built-in sample.
func bookFS(cfg Config) (fs.FS, string, error) {
	if cfg.Docs == "" {
		return sample.Docs(), "the built-in sample textbook", nil
	}
	info, err := os.Stat(cfg.Docs)
	if err != nil {
		return nil, "", fmt.Errorf("docs %s: %w", cfg.Docs, err)
	}
	if !info.IsDir() {
		return nil, "", fmt.Errorf("docs %s: not a directory", cfg.Docs)
	}
	return os.DirFS(cfg.Docs), cfg.Docs, nil
}

// chunkOptions fingerprints the chunker settings stored with an index.
func chunkOptions() string {
	o := markdown.DefaultOptions()
	return fmt.Sprintf("chunker=%s target=%d max=%d min=%d overlap=%d", markdown.Version, o.TargetTokens, o.MaxTokens, o.MinTokens, o.OverlapTokens)
}

// ingest reads the book and replaces the data dir's index when the book
// changed; files left out of the book are reported to warn. progress may
// be nil. A cancelled ctx (SIGINT, SIGTERM) stops it.
func ingest(ctx context.Context, cfg Config, warn io.Writer, progress func(done, total int, path string)) (rag.Book, int, bool, error) {
	fsys, _, err := bookFS(cfg)
	if err != nil {
		return rag.Book{}, 0, false, err
	}
	opts := markdown.DefaultOptions()
	opts.Progress = progress
	opts.Warn = func(path string, err error) {
		fmt.Fprintf(warn, "textbook-rag: warning: %s: %v\n", path, err)
	}
	book, chunks, err := markdown.Load(ctx, fsys, opts)
	if err != nil {
		return rag.Book{}, 0, false, fmt.Errorf("ingest: %w", err)
	}
	wrote, err := datadir.Save(cfg.Data, book, chunks, chunkOptions())
	if err != nil {
		return rag.Book{}, 0, false, err
	}
	return book, len(chunks), wrote, nil
}

// Open makes sure the index is current (ingesting the book when it is
// missing or changed, when ensure is set) and builds the tutor over its
// backends. On error what was opened is closed.
func (m *Main) Open(ctx context.Context, ensure bool) error {
	if err := m.open(ctx, ensure); err != nil {
		m.Close()
		return err
	}
	return nil
}

func (m *Main) open(ctx context.Context, ensure bool) error {
	cfg := m.Config
	if ensure {
		if _, _, _, err := ingest(ctx, cfg, m.stderr, nil); err != nil {
			return err
		}
	}
	ix, err := datadir.Load(cfg.Data)
	if errors.Is(err, datadir.ErrNoIndex) {
		return fmt.Errorf("%w: run `textbook-rag ingest --data %s` first", err, cfg.Data)
	}
	if err != nil {
		return err
	}
	m.Index, m.Lexical = ix, lexical.New(ix.Chunks)

	scope := tutor.DefaultScope()
	if cfg.ScopePatterns != "" {
		if scope, err = tutor.LoadScope(cfg.ScopePatterns); err != nil {
			return err
		}
	}
	logw := m.stderr
	if cfg.RefusalLog != "" {
		f, err := os.OpenFile(cfg.RefusalLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("refusal log: %w", err)
		}
		m.closers = append(m.closers, f.Close)
		logw = f
	}
	retriever, err := m.openRetriever(ctx)
	if err != nil {
		return err
	}
	llm, err := m.openLLM()
	if err != nil {
		return err
	}
	var extractor rag.Generator = extractive.Generator{}
	if llm == nil {
		extractor = m.countGenerator(extractor)
	}
	m.Tutor = &tutor.Tutor{
		Config:     cfg.Tutor,
		Retriever:  retriever,
		Evidence:   m.Lexical,
		Scope:      scope,
		Modules:    scopeList(ix),
		Extractive: extractor,
		LLM:        llm,
		Logger:     m.Logger,
	}
	m.Refusals = tutor.NewRefusalLog(logw)
	m.Refusals.Logger = m.Logger
	return nil
}

// countGenerator wraps the generator that answers with the metrics, when
// there are metrics.
func (m *Main) countGenerator(g rag.Generator) rag.Generator {
	if m.Metrics == nil {
		return g
	}
	return m.Metrics.CountGenerator(g)
}

// Close releases what the wiring opened, last first.
func (m *Main) Close() error {
	var errs []error
	for i := len(m.closers) - 1; i >= 0; i-- {
		errs = append(errs, m.closers[i]())
	}
	m.closers = nil
	return errors.Join(errs...)
}

// scopeList is what the out-of-scope refusal says the course covers: the
// book's module titles, or, for a book without module folders, its
// chapter titles.
func scopeList(ix *datadir.Index) []string {
	var out []string
	for _, m := range ix.Book.Modules {
		out = append(out, m.Title)
	}
	if len(out) > 0 {
		return out
	}
	seen := map[string]bool{}
	for _, c := range ix.Chunks {
		if !seen[c.ChapterTitle] {
			seen[c.ChapterTitle] = true
			out = append(out, c.ChapterTitle)
		}
	}
	return out
}
