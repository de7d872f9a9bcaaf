package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/datadir"
	"github.com/textbook-rag/rag/extractive"
	rhttp "github.com/textbook-rag/rag/http"
	"github.com/textbook-rag/rag/internal/logline"
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

	Index *datadir.Index
	// Files is the book as read at start, in memory (nil when the index
	// was only loaded): the reader's pages are built from it.
	Files   fs.FS
	Lexical *lexical.Index
	Tutor   *tutor.Tutor
	// Refusals is the refusal log, written once a refusal is delivered.
	Refusals *tutor.RefusalLog

	// Set by OpenService.
	History rag.History
	Server  *rhttp.Server

	stderr  *logline.Writer // every log line to stderr goes through it
	checks  []rhttp.Check   // health checks of the backends opened
	closers []func() error
}

// NewMain returns the wiring for cfg, logging JSON to stderr. The
// application and access logs and, by default, the refusal log share one
// logline.Writer to stderr: their lines stay whole and apart on a full
// disk.
func NewMain(cfg Config, stderr io.Writer) *Main {
	lw := logline.New(stderr)
	return &Main{Config: cfg, Logger: slog.New(slog.NewJSONHandler(lw, nil)), stderr: lw}
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

// readBook reads the configured book into memory, once: a folder through
// markdown.ReadDir (inside the folder, no links followed, no FIFO waited
// on), or the built-in sample.
func readBook(ctx context.Context, cfg Config, opts markdown.Options) (fs.FS, error) {
	if cfg.Docs == "" {
		return markdown.ReadFS(ctx, sample.Docs(), opts)
	}
	if _, _, err := bookFS(cfg); err != nil {
		return nil, err
	}
	return markdown.ReadDir(ctx, cfg.Docs, opts)
}

// chunkOptions fingerprints the chunker settings stored with an index.
func chunkOptions() string {
	o := markdown.DefaultOptions()
	return fmt.Sprintf("chunker=%s target=%d max=%d min=%d overlap=%d", markdown.Version, o.TargetTokens, o.MaxTokens, o.MinTokens, o.OverlapTokens)
}

// bookSource names the configured book in the index: the folder's
// absolute path, or the sample's name.
func bookSource(cfg Config) string {
	if cfg.Docs == "" {
		return datadir.SampleSource
	}
	if abs, err := filepath.Abs(cfg.Docs); err == nil {
		return abs
	}
	return cfg.Docs
}

// writerWait is how long an ingest that a command runs on its own (serve,
// ask, report...) waits for another process writing the index: replicas
// of one book starting together wait for the first instead of failing.
const writerWait = 30 * time.Second

// ingested is one read of the book: the files as read, in memory, and the
// index built from them. What a command serves comes from both, so the
// pages and the answers show the same version of the book.
type ingested struct {
	Files fs.FS
	Index *datadir.Index
	Wrote bool // the data dir's index was replaced
}

// ingest reads the book and replaces the data dir's index when the book
// changed; files left out of the book are reported to warn. progress may
// be nil. A cancelled ctx (SIGINT, SIGTERM) stops it. The index of
// another book is replaced with a warning: every command serves the book
// it was given from its own read, so the file only spares the next start
// a rebuild, and refusing would stop a reader who tries one book after
// another on the default data directory. explicit is the ingest
// command's: it fails at once when another process is writing, where the
// others wait for it.
func ingest(ctx context.Context, cfg Config, warn io.Writer, progress func(done, total int, path string), explicit bool) (ingested, error) {
	opts := markdown.DefaultOptions()
	opts.Progress = progress
	opts.Warn = func(path string, err error) {
		fmt.Fprintf(warn, "textbook-rag: warning: %s: %v\n", path, err)
	}
	fsys, err := readBook(ctx, cfg, opts)
	if err != nil {
		return ingested{}, fmt.Errorf("ingest: %w", err)
	}
	book, chunks, err := markdown.Load(ctx, fsys, opts)
	if err != nil {
		return ingested{}, fmt.Errorf("ingest: %w", err)
	}
	if afterBookRead != nil {
		afterBookRead()
	}
	if err := ctx.Err(); err != nil {
		return ingested{}, fmt.Errorf("ingest: %w", err)
	}
	so := datadir.SaveOptions{Options: chunkOptions(), Source: bookSource(cfg), Replace: true}
	if !explicit {
		so.Wait = writerWait
	}
	so.Replaced = func(old string) {
		fmt.Fprintf(warn, "textbook-rag: warning: %s held the index of another book (%s): replacing it\n", cfg.Data, old)
	}
	wrote, err := datadir.Save(ctx, cfg.Data, book, chunks, so)
	if err != nil {
		return ingested{}, err
	}
	return ingested{Files: fsys, Index: &datadir.Index{Book: book, Chunks: chunks, Options: so.Options, Source: so.Source}, Wrote: wrote}, nil
}

// afterBookRead, set by tests, runs when the book has been read and
// chunked, before the index is saved: whatever changes the book then must
// not show in what is served, and a signal then must still be honoured
// at once.
var afterBookRead func()

// Open makes sure the index is current (ingesting the book when it is
// missing or changed, when ensure is set) and builds the tutor over its
// backends. On error what was opened is closed. A cancelled ctx (SIGINT,
// SIGTERM) returns at once, whatever step the opening is in (see
// untilDone).
func (m *Main) Open(ctx context.Context, ensure bool) error {
	return m.untilOpen(ctx, func() error { return m.open(ctx, ensure) })
}

// untilOpen runs open until it is done or ctx is; what open opened is
// closed when it fails, or when it succeeds after ctx ended.
func (m *Main) untilOpen(ctx context.Context, open func() error) error {
	_, err := untilDone(ctx, func() (struct{}, error) {
		if err := open(); err != nil {
			m.Close()
			return struct{}{}, err
		}
		return struct{}{}, nil
	}, func(struct{}) { m.Close() })
	return err
}

func (m *Main) open(ctx context.Context, ensure bool) error {
	cfg := m.Config
	if ensure {
		// The index is the one built from this read, not the data dir's
		// file, which another process may replace meanwhile.
		in, err := ingest(ctx, cfg, m.stderr, nil, false)
		if err != nil {
			return err
		}
		m.Files, m.Index = in.Files, in.Index
	} else {
		ix, err := datadir.Load(cfg.Data)
		if errors.Is(err, datadir.ErrNoIndex) {
			return fmt.Errorf("%w: run `textbook-rag ingest --data %s` first", err, cfg.Data)
		}
		if err != nil {
			return err
		}
		m.Index = ix
	}
	ix := m.Index
	m.Lexical = lexical.New(ix.Chunks)

	scope := tutor.DefaultScope()
	if cfg.ScopePatterns != "" {
		var err error
		if scope, err = tutor.LoadScope(cfg.ScopePatterns); err != nil {
			return err
		}
	}
	var logw io.Writer = m.stderr
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
