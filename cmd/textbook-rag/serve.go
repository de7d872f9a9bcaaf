package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/textbook-rag/rag"
	rhttp "github.com/textbook-rag/rag/http"
	"github.com/textbook-rag/rag/postgres"
	"github.com/textbook-rag/rag/sqlite"
	"github.com/textbook-rag/rag/web"
)

// OpenService opens what `serve` runs and the end-to-end tests start:
// the tutor, counted by the server's metrics, behind its HTTP API, with
// chat history and the reader's page. On error what was opened is closed.
// A cancelled ctx (SIGINT, SIGTERM) returns at once (see untilDone).
func (m *Main) OpenService(ctx context.Context) error {
	defer collectSoonerDuringStart()()
	m.Metrics = rhttp.NewMetrics()
	if err := m.Metrics.CountLogWriteErrors(m.stderr.Failures); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	return m.untilOpen(ctx, func() error {
		if err := m.open(ctx, true); err != nil {
			return err
		}
		return m.openService(ctx)
	})
}

// historyFile is the SQLite chat history's file in the book's folder.
const historyFile = "history.db"

// historyOpenTimeout bounds connecting to the history store and migrating
// it at start: a store that accepts connections and then says nothing
// stops the start with an error instead of holding it.
const historyOpenTimeout = 30 * time.Second

func (m *Main) openService(ctx context.Context) error {
	cfg := m.Config
	// Each store is assigned to m.History only once open: a nil
	// *postgres.History in the interface would not compare equal to nil.
	octx, cancel := context.WithTimeout(ctx, historyOpenTimeout)
	defer cancel()
	historyCheck := "sqlite_connected"
	if cfg.DatabaseURL != "" {
		h, err := postgres.Open(octx, cfg.DatabaseURL)
		if err != nil {
			return fmt.Errorf("chat history: %w", err)
		}
		// Other books' servers may share the database: this one sees
		// only its own book's sessions.
		if err := h.UseBook(octx, bookKey(cfg, m.Index)); err != nil {
			h.Close()
			return fmt.Errorf("chat history: %w", err)
		}
		h.MaxSessionMessages = cfg.SessionMaxMessages
		m.History, historyCheck = h, "postgres_connected"
	} else {
		h, err := sqlite.Open(octx, filepath.Join(m.Dir, historyFile))
		if err != nil {
			return fmt.Errorf("chat history: %w", err)
		}
		h.MaxSessionMessages = cfg.SessionMaxMessages
		m.History = h
	}
	m.closers = append(m.closers, m.History.Close)

	// The pages come from the read the index was built from: one version.
	page, err := web.New(m.Site.Tree, web.Options{Title: m.Course})
	if err != nil {
		return fmt.Errorf("reader's page: %w", err)
	}
	m.Site = nil // the pages hold what they show; the raw files can go

	m.Server = rhttp.NewServer(rhttp.Config{
		Addr:             cfg.Addr,
		AllowedOrigins:   cfg.AllowedOrigins,
		AdminToken:       cfg.AdminToken,
		ChatRatePerMin:   cfg.ChatRate,
		ChunksRatePerMin: cfg.ChunksRate,
		TrustProxy:       cfg.TrustProxy,
		TrustedProxies:   cfg.TrustedProxies,
		ShutdownTimeout:  cfg.ShutdownWait,
		HistoryTimeout:   cfg.HistoryTimeout,
	})
	m.Server.Logger = m.Logger
	m.Server.Metrics = m.Metrics
	m.Server.Tutor = m.Tutor
	m.Server.Book = bookKey(cfg, m.Index)
	m.Server.Refusals = m.Refusals
	m.Server.History = m.History
	m.Server.Chunks = m.Index
	m.Server.Search = m.Search()
	m.Server.ConfidentScore = m.Config.Tutor.ConfidentThreshold
	m.Server.Web = page
	m.Server.SignOuts, _ = m.History.(rag.SignOuts)
	xr, _ := m.History.(rag.ExchangeReader)
	m.Server.Report = reportSource(cfg, m.Index, xr)
	// Kept with the index: a start with a current index does not repeat it.
	sc, _, err := currentSelfCheck(ctx, cfg.Tutor, m.Index, m.Dir, m.Lexical, m.Answerer, m.Logger)
	if err != nil {
		return err
	}
	m.SelfCheck = sc
	m.Server.Report.SelfCheck = reportSelfCheck(sc)
	m.Server.Checks = append([]rhttp.Check{{Name: historyCheck, Ping: m.History.Ping}}, m.checks...)
	return nil
}

// Run serves on Config.Addr until ctx is done, then shuts down; with a
// history retention it prunes idle sessions meanwhile.
func (m *Main) Run(ctx context.Context, stdout io.Writer) error {
	cfg := m.Config
	ln, err := net.Listen("tcp", cfg.Addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("listen %s: %w: another process is serving on that port; choose another with --addr (e.g. --addr 127.0.0.1:%d) or the PORT environment variable", cfg.Addr, err, suggestPort(cfg.Addr))
	}
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Addr, err)
	}
	m.logConfig(ln.Addr().String())
	if cfg.PprofAddr != "" {
		if _, err := servePprof(ctx, cfg.PprofAddr, m.Logger); err != nil {
			ln.Close()
			return err
		}
	}
	if err := m.Server.Open(ln); err != nil {
		return err
	}
	if cfg.HistoryRetention > 0 {
		if p, ok := m.History.(rag.HistoryPruner); ok {
			go keepHistory(ctx, p, cfg.HistoryRetention, m.Logger)
		}
	}
	fmt.Fprintln(stdout, m.SelfCheck)
	fmt.Fprintf(stdout, "textbook-rag is serving %q on http://%s\n", m.Course, displayAddr(ln.Addr()))
	<-ctx.Done()
	m.Logger.Info("shutting down")
	return m.Server.Shutdown(context.Background())
}

// logConfig logs the effective configuration once, without secrets.
func (m *Main) logConfig(addr string) {
	c := m.Config
	docs := c.Docs
	if docs == "" {
		docs = "(built-in sample textbook)"
	}
	history := "sqlite " + filepath.Join(m.Dir, historyFile)
	if c.DatabaseURL != "" {
		history = "postgres"
	}
	retriever := "built-in lexical"
	if c.Embedder != "" {
		retriever = c.Embedder + " embeddings (" + c.EmbeddingModel + ")"
		if c.QdrantURL != "" {
			retriever += " + qdrant " + c.QdrantCollection
		}
	}
	m.Logger.Info("starting",
		slog.String("version", rag.Version),
		slog.String("addr", addr),
		slog.String("docs", docs),
		slog.String("data", c.Data),
		slog.String("book_dir", m.Dir),
		slog.String("course", m.Course),
		slog.Int("chunks", len(m.Index.Chunks)),
		slog.Float64("empty_threshold", c.Tutor.EmptyThreshold),
		slog.Float64("confident_threshold", c.Tutor.ConfidentThreshold),
		slog.Int("top_k", c.Tutor.TopK),
		slog.String("retriever", retriever),
		slog.String("generator", c.Generator),
		slog.String("history", history),
		slog.Any("cors_origins", c.AllowedOrigins),
		slog.Bool("admin_token_set", c.AdminToken != ""),
		slog.Int("chat_rate_per_min", c.ChatRate),
		slog.Int("chunks_rate_per_min", c.ChunksRate),
		slog.Bool("trust_proxy", c.TrustProxy),
		slog.Int("trusted_proxies", c.TrustedProxies),
		slog.String("history_timeout", c.HistoryTimeout.String()),
		slog.String("history_retention", retentionValue{&c.HistoryRetention}.String()),
	)
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := DefaultConfig()
	f := newFlags("serve", &cfg, stderr)
	f.book()
	f.answering()
	f.service()
	f.reporting()
	if err := f.parse(args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return usageError{"serve takes no arguments"}
	}
	m := NewMain(cfg, stderr)
	if err := m.OpenService(ctx); err != nil {
		return err
	}
	defer m.Close()
	limitMemory(m.Logger)
	return m.Run(ctx, stdout)
}

// keepHistory deletes the sessions idle for longer than retention, at
// start and then every hour (or every tenth of a shorter retention),
// until ctx ends.
func keepHistory(ctx context.Context, p rag.HistoryPruner, retention time.Duration, log *slog.Logger) {
	every := min(time.Hour, max(retention/10, time.Second))
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Minute)
		n, err := p.DeleteSessionsBefore(pctx, time.Now().Add(-retention))
		cancel()
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("history retention", slog.Any("error", err))
		case n > 0:
			log.Info("history retention: deleted idle sessions", slog.Int("sessions", n), slog.String("retention", retentionValue{&retention}.String()))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

// suggestPort is the port after addr's, for the hint when it is taken.
func suggestPort(addr string) int {
	_, p, err := net.SplitHostPort(addr)
	n, perr := strconv.Atoi(p)
	if err != nil || perr != nil || n <= 0 || n >= 65535 {
		return 8002
	}
	return n + 1
}

// displayAddr turns ":8001" into something a browser can open.
func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if host == "" || host == "::" || host == "0.0.0.0" {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}
