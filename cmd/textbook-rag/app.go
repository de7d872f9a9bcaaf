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

// App is an opened book: its index, its retrieval model and the tutor
// that answers from it. The commands build one and close it.
type App struct {
	Config  Config
	Index   *datadir.Index
	Lexical *lexical.Index
	Tutor   *tutor.Tutor
	Logger  *slog.Logger

	// embedder is set when an API embedder serves retrieval; checks are
	// the health checks of the backends opened.
	embedder      rag.Embedder
	countEmbedder func(wrap func(rag.Embedder) rag.Embedder)
	checks        []rhttp.Check

	closers []func() error
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

// openApp makes sure the index is current (ingesting the book when it is
// missing or changed, unless only --data was given) and builds the tutor.
func openApp(ctx context.Context, cfg Config, stderr io.Writer, ensure bool) (*App, error) {
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	if ensure {
		if _, _, _, err := ingest(ctx, cfg, stderr, nil); err != nil {
			return nil, err
		}
	}
	ix, err := datadir.Load(cfg.Data)
	if errors.Is(err, datadir.ErrNoIndex) {
		return nil, fmt.Errorf("%w: run `textbook-rag ingest --data %s` first", err, cfg.Data)
	}
	if err != nil {
		return nil, err
	}
	a := &App{Config: cfg, Index: ix, Lexical: lexical.New(ix.Chunks), Logger: logger}

	scope := tutor.DefaultScope()
	if cfg.ScopePatterns != "" {
		if scope, err = tutor.LoadScope(cfg.ScopePatterns); err != nil {
			return nil, err
		}
	}
	var logw io.Writer = stderr
	if cfg.RefusalLog != "" {
		f, err := os.OpenFile(cfg.RefusalLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("refusal log: %w", err)
		}
		a.closers = append(a.closers, f.Close)
		logw = f
	}
	a.Tutor = &tutor.Tutor{
		Modules:    scopeList(ix),
		Config:     cfg.Tutor,
		Retriever:  a.Lexical,
		Evidence:   a.Lexical,
		Scope:      scope,
		Extractive: extractive.Generator{},
		Refusals:   tutor.NewRefusalLog(logw),
		Logger:     logger,
	}
	if err := a.openBackends(ctx); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Close releases what the app opened, last first.
func (a *App) Close() error {
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errs = append(errs, a.closers[i]())
	}
	a.closers = nil
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
