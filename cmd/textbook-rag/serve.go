package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"time"

	"github.com/textbook-rag/rag"
	rhttp "github.com/textbook-rag/rag/http"
	"github.com/textbook-rag/rag/postgres"
	"github.com/textbook-rag/rag/sqlite"
	"github.com/textbook-rag/rag/web"
)

// service is the tutor behind its HTTP API, with chat history and the
// reader's page: what `serve` runs and what the end-to-end tests start.
type service struct {
	app     *App
	history rag.History
	srv     *rhttp.Server
}

// historyOpenTimeout bounds connecting to the history store and migrating
// it at start: a store that accepts connections and then says nothing
// stops the start with an error instead of holding it.
const historyOpenTimeout = 30 * time.Second

func openService(ctx context.Context, cfg Config, stderr io.Writer) (*service, error) {
	app, err := openApp(ctx, cfg, stderr, true)
	if err != nil {
		return nil, err
	}
	s := &service{app: app}
	ok := false
	defer func() {
		if !ok {
			s.close()
		}
	}()

	// Each store is assigned to s.history only once open: a nil
	// *postgres.History in the interface would not compare equal to nil.
	octx, cancel := context.WithTimeout(ctx, historyOpenTimeout)
	defer cancel()
	historyCheck := "sqlite_connected"
	if cfg.DatabaseURL != "" {
		h, err := postgres.Open(octx, cfg.DatabaseURL)
		if err != nil {
			return nil, fmt.Errorf("chat history: %w", err)
		}
		s.history, historyCheck = h, "postgres_connected"
	} else {
		h, err := sqlite.Open(octx, filepath.Join(cfg.Data, "history.db"))
		if err != nil {
			return nil, fmt.Errorf("chat history: %w", err)
		}
		s.history = h
	}

	fsys, _, err := bookFS(cfg)
	if err != nil {
		return nil, err
	}
	page, err := web.New(fsys, web.Options{Title: app.Index.Book.Title})
	if err != nil {
		return nil, fmt.Errorf("reader's page: %w", err)
	}

	s.srv = rhttp.NewServer(rhttp.Config{
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
	s.srv.Logger = app.Logger
	if app.Tutor.LLM != nil {
		app.Tutor.LLM = s.srv.Metrics.CountGenerator(app.Tutor.LLM)
	} else {
		app.Tutor.Extractive = s.srv.Metrics.CountGenerator(app.Tutor.Extractive)
	}
	if app.embedder != nil {
		app.countEmbedder(s.srv.Metrics.CountEmbedder)
	}
	s.srv.Tutor = app.Tutor
	s.srv.History = s.history
	s.srv.Chunks = app.Index
	s.srv.Web = page
	s.srv.Checks = append([]rhttp.Check{{Name: historyCheck, Ping: s.history.Ping}}, app.checks...)
	ok = true
	return s, nil
}

// logConfig logs the effective configuration once, without secrets.
func (s *service) logConfig(addr string) {
	c := s.app.Config
	docs := c.Docs
	if docs == "" {
		docs = "(built-in sample textbook)"
	}
	history := "sqlite " + filepath.Join(c.Data, "history.db")
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
	s.app.Logger.Info("starting",
		slog.String("version", rag.Version),
		slog.String("addr", addr),
		slog.String("docs", docs),
		slog.String("data", c.Data),
		slog.Int("chunks", len(s.app.Index.Chunks)),
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

func (s *service) close() error {
	var errs []error
	if s.history != nil {
		errs = append(errs, s.history.Close())
	}
	if s.app != nil {
		errs = append(errs, s.app.Close())
	}
	return errors.Join(errs...)
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := DefaultConfig()
	f := newFlags("serve", &cfg, stderr)
	f.book()
	f.answering()
	f.service()
	if err := f.parse(args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return usageError{"serve takes no arguments"}
	}
	s, err := openService(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Addr, err)
	}
	s.logConfig(ln.Addr().String())
	if err := s.srv.Open(ln); err != nil {
		return err
	}
	if cfg.HistoryRetention > 0 {
		if p, ok := s.history.(rag.HistoryPruner); ok {
			go keepHistory(ctx, p, cfg.HistoryRetention, s.app.Logger)
		}
	}
	fmt.Fprintf(stdout, "textbook-rag is serving %q on http://%s\n", s.app.Index.Book.Title, displayAddr(ln.Addr()))
	<-ctx.Done()
	s.app.Logger.Info("shutting down")
	return s.srv.Shutdown(context.Background())
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
