package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/textbook-rag/rag/vectors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/answer"
	"github.com/textbook-rag/rag/datadir"
	"github.com/textbook-rag/rag/eval"
	"github.com/textbook-rag/rag/extractive"
	rhttp "github.com/textbook-rag/rag/http"
	"github.com/textbook-rag/rag/internal/logline"
	"github.com/textbook-rag/rag/lexical"
	"github.com/textbook-rag/rag/markdown"
	"github.com/textbook-rag/rag/sample"
	"github.com/textbook-rag/rag/tutor"
	"github.com/textbook-rag/rag/web"
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
	// Meaning holds the sentence model's vectors of the book when one is
	// set (Config.SentenceModel).
	Meaning *vectors.Cache
	// Dir is the book's folder in the data directory: its index, chat
	// history and embeddings.
	Dir string
	// Course is the course's name: Config.Tutor.CourseName when set, else
	// the one the book gives (see courseTitle).
	Course string
	// DefaultRefusalLog, set before Open, is the file in Dir the refusal
	// log goes to when Config.RefusalLog is empty; "" means stderr.
	DefaultRefusalLog string
	// Site is the book as read at start (nil when the index was only
	// loaded): the reader's pages are built from it.
	Site *markdown.Site
	// Lexical is the built-in retriever; Answerer is the tutor's evidence
	// finder, whichever retriever runs. Both read the book's analysis.
	Lexical  *lexical.Index
	Answerer *answer.Answerer
	Tutor    *tutor.Tutor
	// SelfCheck is how the answerer did, at start, on questions derived
	// from the book's own definitions (serve).
	SelfCheck eval.SelfCheck
	// Refusals is the refusal log, written once a refusal is delivered.
	Refusals *tutor.RefusalLog

	// Set by OpenService.
	History rag.History
	Server  *rhttp.Server

	// pagesFirst, set by OpenService, has the start build the reader's
	// pages (pages) from Site as soon as the book is read.
	pagesFirst bool
	pages      *web.Handler

	stderr  *logline.Writer // every log line to stderr goes through it
	checks  []rhttp.Check   // health checks of the backends opened
	closers []func() error
}

// Search is the reader's site search (GET /api/search, and the sections
// the widget offers after an insufficient_context refusal): the built-in
// retriever over the book, whichever retriever answers, never below the
// empty threshold; the sections of the tutor's own top k come first.
func (m *Main) Search() rag.SectionSearch {
	return rag.SectionSearch{Retriever: m.Lexical, Floor: m.Config.Tutor.EmptyThreshold, First: m.Config.Tutor.TopK}
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
		// A config or table of contents (SUMMARY.md, mkdocs.yml) names
		// the book's folder: say which.
		return nil, "", fmt.Errorf("docs %s: not a directory: --docs names the book's folder, here perhaps %s", cfg.Docs, filepath.Dir(cfg.Docs))
	}
	return os.DirFS(cfg.Docs), cfg.Docs, nil
}

// readSite reads the configured book once (see markdown.ReadSite): a
// folder, with the site config above it, or the built-in sample.
func readSite(ctx context.Context, cfg Config, opts markdown.Options) (*markdown.Site, error) {
	if cfg.Docs == "" {
		return markdown.ReadSite(ctx, markdown.Source{FS: sample.Docs(), Site: sample.Site(), Name: "Sample textbook"}, opts)
	}
	if _, _, err := bookFS(cfg); err != nil {
		return nil, err
	}
	return markdown.ReadSite(ctx, markdown.Source{Dir: bookSource(cfg)}, opts)
}

// chunkOptions fingerprints the chunker settings stored with an index.
func chunkOptions() string {
	return markdown.Options{}.Fingerprint()
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
// ask...) waits for another process writing the index: replicas of one
// book starting together wait for the first instead of failing.
const writerWait = 30 * time.Second

// ingested is one read of the book: the site as read and the index built
// from it. What a command serves comes from both, so the pages and the
// answers show the same version of the book.
type ingested struct {
	Site  *markdown.Site
	Index *datadir.Index
	Dir   string // the book's folder in the data directory
	Wrote bool   // the folder's index was replaced
}

// ingest reads the book and replaces the index in the book's own folder
// of the data directory when the book changed; files left out of the
// book are reported to warn, at each start (the book's structure is read
// each time). progress, when not nil, follows it. A cancelled ctx
// (SIGINT, SIGTERM) stops it. Each book has its folder (datadir.Locate),
// so books on one data directory never replace each other's index, and a
// book whose index is current writes nothing. explicit is the ingest
// command's: it fails at once when another process is writing, where the
// others wait for it.
func ingest(ctx context.Context, cfg Config, warn io.Writer, progress ingestProgress, explicit bool) (ingested, error) {
	var opts markdown.Options
	if progress != nil {
		opts.Progress, opts.Chunked = progress.Pages, progress.Chunks
	}
	opts.Warn = func(path string, err error) {
		fmt.Fprintf(warn, "textbook-rag: warning: %s: %v\n", path, err)
	}
	site, err := readSite(ctx, cfg, opts)
	if err != nil {
		return ingested{}, fmt.Errorf("ingest: %w", err)
	}
	input, err := inputPrint(site.Files)
	if err != nil {
		return ingested{}, fmt.Errorf("ingest: %w", err)
	}
	// The layout's warnings (pages left out, a table of contents naming no
	// page) are kept with the index.
	so := datadir.SaveOptions{Options: chunkOptions(), Source: bookSource(cfg), Course: capCourseName(site.Title), Input: input, Warnings: site.Warnings}
	dir := datadir.Locate(cfg.Data, so.Source)
	// An index built by this program from these very files is what
	// chunking them again would give: a start costs reading it.
	ix, err := datadir.Load(dir)
	if err == nil && ix.Built(so) {
		if afterBookRead != nil {
			afterBookRead()
		}
		return ingested{Site: site, Index: ix, Dir: dir}, nil
	}
	if datadir.Unusable(err) {
		opts.Warn(filepath.Join(dir, datadir.FileName), fmt.Errorf("not served: %w; rebuilding it from the book", errors.Unwrap(err)))
	}
	book, chunks, err := site.Chunks(ctx)
	if err != nil {
		return ingested{}, fmt.Errorf("ingest: %w", err)
	}
	if afterBookRead != nil {
		afterBookRead()
	}
	if err := ctx.Err(); err != nil {
		return ingested{}, fmt.Errorf("ingest: %w", err)
	}
	if !explicit {
		so.Wait = writerWait
	}
	if progress != nil {
		progress.Step("saving the index")
	}
	wrote, err := datadir.Save(ctx, dir, book, chunks, so)
	if err != nil {
		return ingested{}, err
	}
	ix = &datadir.Index{Book: book, Chunks: chunks, Options: so.Options, Source: so.Source, Course: so.Course, Input: so.Input, Warnings: so.Warnings}
	return ingested{Site: site, Index: ix, Dir: dir, Wrote: wrote}, nil
}

// storedBook loads the index of the book a command that only reads is
// about, writing nothing: the book of --docs (its folder in the data
// directory), else the one --book names, else the data directory's only
// book.
func storedBook(cfg Config) (*datadir.Index, string, error) {
	if cfg.Docs != "" {
		dir := datadir.Locate(cfg.Data, bookSource(cfg))
		ix, err := datadir.Load(dir)
		if errors.Is(err, datadir.ErrNoIndex) {
			return nil, "", fmt.Errorf("%s holds no index of the book %s: serve or ingest it with --data %s first: %w", cfg.Data, bookSource(cfg), cfg.Data, datadir.ErrNoIndex)
		}
		return ix, dir, err
	}
	e, err := datadir.Choose(cfg.Data, cfg.Book)
	if err != nil {
		return nil, "", err
	}
	ix, err := datadir.Load(e.Dir)
	return ix, e.Dir, err
}

// bookKey names the book in a store other books may share (a Postgres
// history, a Qdrant server): the configured key, else the book's source as
// the index recorded it, so that each book's server, and its report, see
// only that book's sessions.
func bookKey(cfg Config, ix *datadir.Index) string {
	switch {
	case cfg.BookKey != "":
		return cfg.BookKey
	case ix != nil && ix.Source != "":
		return ix.Source
	}
	return bookSource(cfg)
}

// bookCollection is the default Qdrant collection of the book keyed key:
// one per book, so two books on one Qdrant never mix their vectors.
func bookCollection(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "textbook_chunks_" + hex.EncodeToString(sum[:6])
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
	defer collectSoonerDuringStart()()
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
		m.Site, m.Index, m.Dir = in.Site, in.Index, in.Dir
	} else {
		ix, dir, err := storedBook(cfg)
		if err != nil {
			return err
		}
		m.Index, m.Dir = ix, dir
	}
	ix := m.Index
	if m.Config.QdrantCollection == "" {
		m.Config.QdrantCollection = bookCollection(bookKey(cfg, ix))
	}
	m.Course = courseName(cfg, ix)
	if m.pagesFirst && m.Site != nil {
		// Rendering the pages allocates more than learning the book:
		// done while little else is live, it adds least to the start's
		// peak.
		pages, err := web.New(m.Site.Tree, web.Options{Title: m.Course})
		if err != nil {
			return fmt.Errorf("reader's page: %w", err)
		}
		m.pages, m.Site = pages, nil // the pages hold what they show; the raw files can go
	}
	key := derivedKey(ix.Chunks)
	book := learnBook(ix.Chunks, m.Dir, key, ensure, m.stderr)
	// The answerer first: building its book side (a start that finds
	// the index stale) then holds less of the start's memory.
	m.Answerer = learnAnswerer(book, m.Dir, answererKey(key, ix.Chunks), ensure && !cfg.Scratch, m.stderr)
	m.Lexical = lexical.New(book)
	if err := m.openMeaning(ctx, key); err != nil {
		return err
	}

	scope := tutor.DefaultScope()
	if cfg.ScopePatterns != "" {
		var err error
		if scope, err = tutor.LoadScope(cfg.ScopePatterns); err != nil {
			return err
		}
	}
	var logw io.Writer = m.stderr
	switch {
	case cfg.RefusalLog == "-":
	case cfg.RefusalLog != "":
		f, err := os.OpenFile(cfg.RefusalLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("refusal log: %w", err)
		}
		m.closers = append(m.closers, f.Close)
		logw = f
	case m.DefaultRefusalLog != "":
		lf := &lazyFile{path: filepath.Join(m.Dir, m.DefaultRefusalLog)}
		m.closers = append(m.closers, lf.Close)
		logw = lf
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
	tc := cfg.Tutor
	tc.CourseName = m.Course
	m.Tutor = &tutor.Tutor{
		Config:     tc,
		Retriever:  retriever,
		Evidence:   m.Answerer,
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

// courseName is the course's name: the configured one, else the one the
// index recorded from the book, else (an index written before it did) the
// book's title.
func courseName(cfg Config, ix *datadir.Index) string {
	for _, name := range []string{cfg.Tutor.CourseName, ix.Course, ix.Book.Title} {
		if name = strings.TrimSpace(name); name != "" {
			return capCourseName(name)
		}
	}
	return "Textbook"
}

// lazyFile is a log file opened (for appending) by its first write, so a
// command that has nothing to log leaves no file behind.
type lazyFile struct {
	path string
	f    *os.File
}

func (l *lazyFile) Write(p []byte) (int, error) {
	if l.f == nil {
		f, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return 0, err
		}
		l.f = f
	}
	return l.f.Write(p)
}

// Stat and Truncate let the refusal log remove a line a full disk cut.
func (l *lazyFile) Stat() (os.FileInfo, error) {
	if l.f == nil {
		return nil, os.ErrClosed
	}
	return l.f.Stat()
}

func (l *lazyFile) Truncate(size int64) error {
	if l.f == nil {
		return os.ErrClosed
	}
	return l.f.Truncate(size)
}

func (l *lazyFile) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}
