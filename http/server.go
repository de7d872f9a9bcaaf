// Package http is textbook-rag's API server: the chat endpoints (JSON and
// Server-Sent Events), chat history, the content listing, the book's site
// search, health and Prometheus metrics, behind request-id, timing, CORS, access-log,
// rate-limit and panic-recovery middleware.
//
// Every error response has the body {"error", "message", "details"}; see
// StatusCode for the code → status table.
package http

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/report"
)

// Config is the server's configuration. Start from DefaultConfig: in a
// Config literal a zero rate means "no limit".
type Config struct {
	// Addr is the listen address for ListenAndServe (default DefaultAddr).
	Addr string
	// AllowedOrigins is the CORS allow-list. nil means the defaults
	// (http://localhost:3000, http://localhost:8001); an empty non-nil
	// slice allows no cross-origin caller. "*" allows every origin.
	AllowedOrigins []string
	// AdminToken, when set, protects GET /api/content/chunks with
	// "Authorization: Bearer <token>".
	AdminToken string
	// ChatRatePerMin limits POST /api/chat and /api/chat/stream together
	// per client IP (DefaultConfig: 30); 0 turns the limit off. Feedback
	// and GET /api/search have budgets of their own at the same rate.
	ChatRatePerMin int
	// ChunksRatePerMin limits GET /api/content/chunks per client IP
	// (DefaultConfig: 60); 0 turns the limit off.
	ChunksRatePerMin int
	// TrustProxy takes the client IP from X-Forwarded-For instead of the
	// connection's remote address: the address the outermost trusted
	// proxy appended, TrustedProxies hops from the right.
	TrustProxy bool
	// TrustedProxies is the number of proxies in front of the server that
	// append to X-Forwarded-For (default 1: the rightmost address).
	TrustedProxies int
	// MaxBodyBytes caps request bodies (default 64 KiB); larger bodies get
	// 413 payload_too_large.
	MaxBodyBytes int64
	// ShutdownTimeout bounds how long Shutdown waits for in-flight
	// requests, streams included (default 10s). Those still open then are
	// answered 503 unavailable (a stream gets its error event) and closed,
	// within about a fifth of a second.
	ShutdownTimeout time.Duration
	// HealthTimeout bounds each health check's Ping (default 2s).
	HealthTimeout time.Duration
	// HistoryTimeout bounds each chat-history call, the write of an
	// exchange and the read of a session (default 5s). A write that
	// misses it is a 503 unavailable, and the exchange is written whole
	// or not at all.
	HistoryTimeout time.Duration
}

// Defaults.
const (
	DefaultAddr            = ":8001"
	DefaultMaxBodyBytes    = 64 << 10
	DefaultShutdownTimeout = 10 * time.Second
	DefaultHealthTimeout   = 2 * time.Second
	DefaultHistoryTimeout  = 5 * time.Second
	DefaultChatRatePerMin  = 30
	DefaultChunksRate      = 60
)

// DefaultAllowedOrigins are the CORS origins allowed when
// Config.AllowedOrigins is nil: the reader's dev server and the book site.
var DefaultAllowedOrigins = []string{"http://localhost:3000", "http://localhost:8001"}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		Addr:             DefaultAddr,
		AllowedOrigins:   append([]string(nil), DefaultAllowedOrigins...),
		ChatRatePerMin:   DefaultChatRatePerMin,
		ChunksRatePerMin: DefaultChunksRate,
		MaxBodyBytes:     DefaultMaxBodyBytes,
		ShutdownTimeout:  DefaultShutdownTimeout,
		HealthTimeout:    DefaultHealthTimeout,
		HistoryTimeout:   DefaultHistoryTimeout,
	}
}

// Check is one dependency reported by GET /health, e.g.
// "postgres_connected", "qdrant_connected", "history_connected",
// "index_loaded". Ping returns nil when the dependency is usable.
type Check struct {
	Name string
	Ping func(ctx context.Context) error
}

// RefusalLogger writes the refusal log (tutor.RefusalLog). A failed
// write is counted in refusal_log_errors_total; the logger reports it.
type RefusalLogger interface {
	Log(req rag.ChatRequest, resp rag.ChatResponse) error
}

// Server is the API server. Create it with NewServer, set the
// dependencies, then use Handler, Open or ListenAndServe. The fields must
// not change once Handler has been called.
type Server struct {
	Tutor   rag.Tutor
	History rag.History
	// Feedback stores readers' ratings of answers; when nil, History is
	// used if it stores feedback too.
	Feedback rag.FeedbackStore
	Chunks   rag.ChunkLister
	// Search, when set, serves GET /api/search: the book's sections
	// closest to a query.
	Search rag.Searcher
	// ConfidentScore is the score at and above which a search with
	// confident=1 keeps a section (the tutor's confident threshold).
	ConfidentScore float64
	// Refusals, when set, logs each refusal once it is recorded in the
	// history, so that a refusal the reader never got is never logged.
	Refusals RefusalLogger
	// Report, when set, serves the course report at /admin/report.
	Report *report.Source
	// SignOuts, when set, keeps the report's sign-outs beyond this
	// process (see rag.SignOuts); otherwise they last until it exits.
	SignOuts rag.SignOuts
	Checks   []Check
	// Web, when set, serves every request the API does not match (the
	// reader's page, /widget.js).
	Web     http.Handler
	Logger  *slog.Logger
	Metrics *Metrics
	// Now is the clock of timestamps and the rate limiter.
	Now func() time.Time
	// NewID makes session, message and request ids.
	NewID func() string
	// Book names the course served: the question ids derived from
	// clients' request ids are the book's own, so books sharing one
	// store never derive the same one.
	Book string

	cfg     Config
	once    sync.Once
	handler http.Handler
	limiter *limiter
	// corsWarn rate-limits the warnings of refused origins.
	corsWarn originWarner
	// signedOut are the admin sessions that signed out.
	signedOut signedOut

	mu  sync.Mutex
	srv *http.Server
	// listeners are those served on, which the shutdown drains and closes
	// (see drainOnClose); conns follows their connections.
	listeners       []*drainListener
	conns           connStates
	listenersClosed chan struct{} // see closed
	closeOnce       sync.Once

	// flights are the requests in progress (*flight keys), which a
	// shutdown that runs out of time ends; ending is set once it does, and
	// a request that arrives then is answered at once.
	flights sync.Map
	ending  atomic.Bool
	// draining is set when the shutdown begins: from then on a request is
	// answered 503 at once.
	draining atomic.Bool
}

// NewServer returns a server with cfg (missing values defaulted), a JSON
// logger on stderr, fresh Metrics, the wall clock and UUID ids. Set Tutor,
// History, Chunks, Checks and Web before serving.
func NewServer(cfg Config) *Server {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.AllowedOrigins == nil {
		cfg.AllowedOrigins = append([]string(nil), DefaultAllowedOrigins...)
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.HealthTimeout <= 0 {
		cfg.HealthTimeout = DefaultHealthTimeout
	}
	if cfg.HistoryTimeout <= 0 {
		cfg.HistoryTimeout = DefaultHistoryTimeout
	}
	return &Server{
		Logger:  slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Metrics: NewMetrics(),
		Now:     time.Now,
		NewID:   rag.NewID,
		cfg:     cfg,
	}
}

// Config returns the configuration in force (defaults applied).
func (s *Server) Config() Config { return s.cfg }

// Handler returns the server's root handler, built on first use.
func (s *Server) Handler() http.Handler {
	s.once.Do(func() {
		if s.Logger == nil {
			s.Logger = slog.New(slog.DiscardHandler)
		}
		if s.Metrics == nil {
			s.Metrics = NewMetrics()
		}
		if s.Now == nil {
			s.Now = time.Now
		}
		if s.NewID == nil {
			s.NewID = rag.NewID
		}
		s.limiter = newLimiter(func() time.Time { return s.Now() })
		s.limiter.setRate(groupChat, s.cfg.ChatRatePerMin)
		s.limiter.setRate(groupChunks, s.cfg.ChunksRatePerMin)
		s.limiter.setRate(groupFeedback, s.cfg.ChatRatePerMin)
		s.limiter.setRate(groupSearch, s.cfg.ChatRatePerMin)
		s.handler = s.middleware(s.routes())
	})
	return s.handler
}

// Route groups of the rate limiter.
const (
	groupChat   = "chat"
	groupChunks = "chunks"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, h http.HandlerFunc) {
		mux.Handle(pattern, withRoute(h))
	}
	allow := func(path, methods string) {
		handle(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", methods)
			s.writeError(w, r, rag.Errorf(EMETHOD, "%s is not allowed on %s; use %s", r.Method, path, methods))
		})
	}

	handle("POST /api/chat", s.limit(groupChat, s.handleChat))
	allow("/api/chat", "POST, OPTIONS")
	handle("POST /api/chat/stream", s.limit(groupChat, s.handleChatStream))
	allow("/api/chat/stream", "POST, OPTIONS")
	handle("GET /api/chat/sessions/{id}/messages", s.handleMessages)
	allow("/api/chat/sessions/{id}/messages", "GET, HEAD, OPTIONS")
	handle("POST /api/chat/messages/{id}/feedback", s.limit(groupFeedback, s.handleFeedback))
	allow("/api/chat/messages/{id}/feedback", "POST, OPTIONS")
	handle("GET /api/search", s.limit(groupSearch, s.handleSearch))
	allow("/api/search", "GET, HEAD, OPTIONS")
	handle("GET /api/content/chunks", s.limit(groupChunks, s.requireAdmin(s.handleChunks)))
	allow("/api/content/chunks", "GET, HEAD, OPTIONS")
	handle("GET /admin/report", s.handleReport)
	allow("/admin/report", "GET, HEAD")
	handle("POST /admin/login", s.limit(groupChunks, s.handleLogin))
	allow("/admin/login", "POST")
	handle("POST /admin/logout", s.handleLogout)
	allow("/admin/logout", "POST")
	handle("GET /health", s.handleHealth)
	allow("/health", "GET, HEAD")
	handle("GET /metrics", s.Metrics.Handler().ServeHTTP)
	allow("/metrics", "GET, HEAD")
	handle("/api/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, rag.Errorf(rag.ENOTFOUND, "no API endpoint %s", r.URL.Path))
	})
	if s.Web != nil {
		mux.Handle("/", withRoute(s.Web.ServeHTTP))
	} else {
		handle("/", func(w http.ResponseWriter, r *http.Request) {
			s.writeError(w, r, rag.Errorf(rag.ENOTFOUND, "not found"))
		})
	}
	return mux
}

// Open serves on ln in the background until Shutdown.
func (s *Server) Open(ln net.Listener) error {
	srv := s.httpServer(ln.Addr().String())
	go func() {
		if err := srv.Serve(s.jsonErrors(s.drainOnClose(ln))); err != nil && !s.stopped(err) {
			s.Logger.Error("server stopped", slog.Any("error", err))
		}
	}()
	return nil
}

// stopped reports whether Serve's error is the shutdown's doing: the
// listener it closed, before or after net/http's own Shutdown began.
func (s *Server) stopped(err error) bool {
	return errors.Is(err, http.ErrServerClosed) || s.draining.Load() && errors.Is(err, net.ErrClosed)
}

// ListenAndServe listens on Config.Addr and serves until Shutdown; it
// returns nil after a graceful shutdown.
func (s *Server) ListenAndServe() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", s.cfg.Addr, err)
	}
	srv := s.httpServer(ln.Addr().String())
	s.Logger.Info("listening", slog.String("addr", ln.Addr().String()))
	if err := srv.Serve(s.jsonErrors(s.drainOnClose(ln))); err != nil && !s.stopped(err) {
		return err
	}
	return nil
}

// maxHeaderBytes caps a request's headers; past it the request is 431
// headers_too_large.
const maxHeaderBytes = 64 << 10

// goHeadersTooLarge is the reply net/http writes itself, before any
// handler runs, to headers over MaxHeaderBytes.
const goHeadersTooLarge = "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large"

// jsonErrors wraps ln's connections so that net/http's own reply to
// oversized headers goes out as the API's JSON error body: Go offers no
// hook for it, and a middleware never sees the request.
func (s *Server) jsonErrors(ln net.Listener) net.Listener { return jsonErrorListener{ln, s} }

type jsonErrorListener struct {
	net.Listener
	s *Server
}

func (l jsonErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &jsonErrorConn{Conn: c, s: l.s}, nil
}

type jsonErrorConn struct {
	net.Conn
	s *Server
}

// goExpectationFailed opens the empty 417 net/http answers, before any
// handler runs, to an Expect header other than 100-continue; no handler
// of the API answers 417 itself.
const goExpectationFailed = "HTTP/1.1 417 Expectation Failed\r\n"

// Write swaps net/http's own replies, which it writes in one call
// straight to the connection (a plain-text 431, an empty 417), for the
// JSON ones; everything else passes.
func (c *jsonErrorConn) Write(p []byte) (int, error) {
	var e *rag.Error
	switch {
	case len(p) == len(goHeadersTooLarge) && string(p) == goHeadersTooLarge:
		e = rag.Errorf(EHEADERSTOOLARGE, "the request headers are larger than %d bytes", maxHeaderBytes)
		e.Details = map[string]any{"max_bytes": maxHeaderBytes}
	case bytes.HasPrefix(p, []byte(goExpectationFailed)) && bytes.HasSuffix(p, []byte("\r\n\r\n")):
		e = rag.Errorf(EEXPECTATION, "the only expectation the server meets is Expect: 100-continue")
	default:
		return c.Conn.Write(p)
	}
	body, _ := errorBody(e)
	data, _ := marshal(body)
	id := c.s.NewID()
	status := StatusCode(e.Code)
	c.s.Logger.Warn(e.Message, slog.String("request_id", id), slog.String("remote", c.RemoteAddr().String()))
	resp := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nX-Request-ID: %s\r\nConnection: close\r\n\r\n%s", status, http.StatusText(status), len(data), id, data)
	if _, err := io.WriteString(c.Conn, resp); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite lets net/http half-close the connection after the 431, as
// it does on a bare TCP connection, so the reader gets the reply.
func (c *jsonErrorConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (s *Server) httpServer(addr string) *http.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.srv = &http.Server{
		Addr:              addr,
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnState:         s.conns.track,
		ErrorLog:          slog.NewLogLogger(s.Logger.Handler(), slog.LevelWarn),
	}
	return s.srv
}

// Shutdown stops accepting connections and waits for in-flight requests
// for at most Config.ShutdownTimeout (or until ctx ends). A request that
// arrives meanwhile is answered 503 unavailable at once, and the
// connections already waiting to be accepted are accepted and answered so
// before the listener closes (see stopAccepting). Every request
// still open then is ended (see endFlights): a plain one is answered 503
// unavailable with Retry-After, a stream gets its error event, and their
// work is cancelled; at most endWait+endDrain later the connections are
// closed. Either way the shutdown is complete, and Shutdown returns nil.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	srv := s.srv
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	s.draining.Store(true)
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ShutdownTimeout)
	defer cancel()
	s.stopAccepting(ctx)
	err := srv.Shutdown(ctx)
	if err == nil {
		return nil
	}
	plain, streams := s.endFlights()
	// A second, short drain lets the ended responses finish cleanly.
	dctx, dcancel := context.WithTimeout(context.Background(), endDrain)
	_ = srv.Shutdown(dctx)
	dcancel()
	_ = srv.Close()
	s.Logger.Warn("shutdown: the grace ran out; ended the requests still open",
		slog.String("grace", s.cfg.ShutdownTimeout.String()),
		slog.Int("requests_answered_unavailable", plain),
		slog.Int("streams_ended", streams))
	return nil
}

// Shutdown's timings once the grace has run out: how long a cancelled
// handler has to answer for itself before the shutdown answers in its
// place, how long the shutdown waits for those answers to be written
// (a reader that does not read cannot hold it longer), and how long the
// connections then get to finish their responses before they are closed.
const (
	answerWait = 100 * time.Millisecond
	endWait    = 200 * time.Millisecond
	endDrain   = 100 * time.Millisecond
)

// errShuttingDown is the answer of a request the shutdown ends: the
// cause of its context's cancellation, and the body of its 503 or of its
// stream's error event.
var errShuttingDown = rag.Errorf(rag.EUNAVAILABLE, "The server is shutting down; please ask again.")

// shuttingDown reports whether the request was ended by the shutdown.
func shuttingDown(r *http.Request) bool {
	return context.Cause(r.Context()) == errShuttingDown
}

// flight is a request in progress.
type flight struct {
	origin string // the request's Origin, for the CORS headers of its 503
	rw     *responseWriter
	cancel context.CancelCauseFunc
	done   chan struct{} // closed when the handler has returned
	// sw is the stream's writer once the request streams (see
	// markStream); its mutex guards it.
	mu sync.Mutex
	sw *sseWriter
}

// markStream makes the request's flight a stream, ended with an error
// event rather than a 503.
func markStream(r *http.Request, sw *sseWriter) {
	if info := infoOf(r.Context()); info != nil && info.flight != nil {
		info.flight.mu.Lock()
		info.flight.sw = sw
		info.flight.mu.Unlock()
	}
}

// endFlights ends every request still in progress, so that no reader is
// left with a cut connection: each stream gets an error event saying the
// server is shutting down; each other request has its context cancelled
// with errShuttingDown, which its handler answers as a 503 unavailable,
// or, if it has not begun a response within answerWait, the shutdown
// answers so in its place. Each flight is ended on its own goroutine, and
// endFlights waits for them at most endWait. It returns the numbers of
// plain requests and streams ended.
func (s *Server) endFlights() (plain, streams int) {
	s.ending.Store(true)
	body, _ := errorBody(errShuttingDown)
	data, _ := marshal(body)
	// Shared by the goroutines below: read only.
	line := append(append(make([]byte, 0, len(data)+1), data...), '\n')
	var wg sync.WaitGroup
	s.flights.Range(func(k, _ any) bool {
		f := k.(*flight)
		f.mu.Lock()
		sw := f.sw
		f.mu.Unlock()
		if sw != nil {
			streams++
			wg.Go(func() {
				sw.abort(data)
				f.cancel(errShuttingDown)
			})
			return true
		}
		plain++
		wg.Go(func() {
			f.cancel(errShuttingDown)
			select {
			case <-f.done:
			case <-time.After(answerWait):
				s.answerUnavailable(f, line)
			}
		})
		return true
	})
	ended := make(chan struct{})
	go func() {
		wg.Wait()
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(endWait):
	}
	return plain, streams
}

// answerUnavailable answers a request whose handler has not begun its
// response with errShuttingDown's 503 (body, read only), in the
// handler's place: its later writes are dropped. The body has its
// length, so the reader has it whole even if the connection is closed
// before the handler returns.
func (s *Server) answerUnavailable(f *flight, body []byte) {
	f.rw.answer(http.StatusServiceUnavailable, body, func(h http.Header) {
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Retry-After", fmt.Sprint(retryUnavailable))
		if s.allowOrigin(f.origin) {
			s.corsHeaders(h, f.origin)
		}
	})
}
