package http

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/textbook-rag/rag"
)

// reqInfo is per-request state shared between the outer middleware and
// the handlers: the mux pattern is only known inside the mux.
type reqInfo struct {
	id       string
	route    string
	clientIP string
	start    time.Time
	canceled bool
	flight   *flight
}

type infoKey struct{}

func infoOf(ctx context.Context) *reqInfo {
	info, _ := ctx.Value(infoKey{}).(*reqInfo)
	return info
}

func requestID(ctx context.Context) string {
	if info := infoOf(ctx); info != nil {
		return info.id
	}
	return ""
}

// routeOf is the metrics and log label of a request: its mux pattern
// without the method, never the raw path.
func routeOf(r *http.Request) string {
	if info := infoOf(r.Context()); info != nil && info.route != "" {
		return info.route
	}
	if r.Pattern != "" {
		return patternPath(r.Pattern)
	}
	return "unmatched"
}

func patternPath(p string) string {
	if i := strings.IndexByte(p, ' '); i >= 0 {
		return p[i+1:]
	}
	return p
}

// withRoute records the matched pattern for the outer middleware.
func withRoute(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info := infoOf(r.Context()); info != nil {
			info.route = patternPath(r.Pattern)
		}
		h(w, r)
	})
}

// middleware wraps the mux, outermost first: request id and timing,
// access log and metrics, the request's flight (which a shutdown that
// runs out of time ends), CORS, panic recovery.
func (s *Server) middleware(next http.Handler) http.Handler {
	next = s.recoverPanics(next)
	next = s.cors(next)
	// A request that arrives once the shutdown has begun is answered 503
	// at once (with the CORS headers of its origin) and not served.
	refuse := s.cors(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, errShuttingDown)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := &reqInfo{
			id:       sanitizeRequestID(r.Header.Get("X-Request-ID")),
			clientIP: s.clientIP(r),
			start:    s.Now(),
		}
		if info.id == "" {
			info.id = s.NewID()
		}
		started := time.Now() // durations use the monotonic clock
		// Set on the connection's header: it goes out with whatever
		// answers, the shutdown's 503 included.
		w.Header().Set("X-Request-ID", info.id)
		rw := &responseWriter{ResponseWriter: w, start: started, header: http.Header{}}
		ctx, cancel := context.WithCancelCause(r.Context())
		defer cancel(nil)
		f := &flight{origin: r.Header.Get("Origin"), rw: rw, cancel: cancel, done: make(chan struct{})}
		info.flight = f
		r = r.WithContext(context.WithValue(ctx, infoKey{}, info))

		s.flights.Store(f, nil)
		if s.ending.Load() {
			// Arrived after the shutdown ended the others.
			cancel(errShuttingDown)
		}
		if s.draining.Load() {
			s.awaitClosed(r)
			cancel(errShuttingDown)
			rw.Header().Set("Connection", "close")
			refuse.ServeHTTP(rw, r)
		} else {
			next.ServeHTTP(rw, r)
		}
		close(f.done)
		s.flights.Delete(f)

		if _, _, wrote := rw.written(); !wrote && !info.canceled {
			rw.WriteHeader(http.StatusOK)
		}
		elapsed := time.Since(started)
		status, bytes, _ := rw.written()
		if info.canceled {
			status = 499 // client closed the request
		}
		route := routeOf(r)
		if r.Method == http.MethodOptions && info.route == "" {
			route = "preflight"
		}
		s.Metrics.observeRequest(route, r.Method, status, elapsed)
		s.Logger.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("request_id", info.id),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.String("route", route),
			slog.Int("status", status),
			slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
			slog.Int64("bytes", bytes),
			slog.String("client_ip", info.clientIP),
		)
	})
}

// sanitizeRequestID keeps a caller's X-Request-ID when it is a sane token:
// 1–128 characters of letters, digits and "-_.:".
func sanitizeRequestID(id string) string {
	if id == "" || len(id) > 128 {
		return ""
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-' || c == '_' || c == '.' || c == ':':
		default:
			return ""
		}
	}
	return id
}

// responseWriter records the status and size, and sets X-Response-Time
// just before the header goes out. The handler's header is a map of its
// own, copied to the connection's when the header is written, and every
// write holds mu: the shutdown may answer in the handler's place (see
// answer) while the handler still runs.
type responseWriter struct {
	http.ResponseWriter
	start  time.Time
	header http.Header

	mu          sync.Mutex
	status      int
	bytes       int64
	wroteHeader bool
	// taken: the shutdown answered; the handler's writes are dropped.
	taken bool
}

// errAnswered is what the handler's writes return once the shutdown has
// answered in its place.
var errAnswered = errors.New("the shutdown answered this request")

func (w *responseWriter) Header() http.Header { return w.header }

func (w *responseWriter) WriteHeader(status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeader(status)
}

// writeHeader sends the header; w.mu is held.
func (w *responseWriter) writeHeader(status int) {
	if w.wroteHeader || w.taken {
		return
	}
	if status >= 100 && status < 200 {
		w.copyHeader()
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.wroteHeader = true
	w.status = status
	ms := float64(time.Since(w.start).Microseconds()) / 1000
	w.header.Set("X-Response-Time", strconv.FormatFloat(ms, 'f', 3, 64)+"ms")
	w.copyHeader()
	w.ResponseWriter.WriteHeader(status)
}

// copyHeader makes the connection's header the handler's, keeping what
// the middleware set on it that the handler's does not override.
func (w *responseWriter) copyHeader() {
	dst := w.ResponseWriter.Header()
	for k, v := range w.header {
		dst[k] = v
	}
}

func (w *responseWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.taken {
		return 0, errAnswered
	}
	if !w.wroteHeader {
		w.writeHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

func (w *responseWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.taken {
		return
	}
	if !w.wroteHeader {
		w.writeHeader(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// answer writes status and body as the whole response, with the header
// that setHeader makes, in the place of a handler that has not begun
// its own, and flushes it; it reports whether it did. The body's length
// is sent, so the reader has it whole whenever the connection closes.
func (w *responseWriter) answer(status int, body []byte, setHeader func(http.Header)) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.wroteHeader || w.taken {
		return false
	}
	w.taken, w.wroteHeader, w.status = true, true, status
	h := w.ResponseWriter.Header()
	setHeader(h)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	ms := float64(time.Since(w.start).Microseconds()) / 1000
	h.Set("X-Response-Time", strconv.FormatFloat(ms, 'f', 3, 64)+"ms")
	w.ResponseWriter.WriteHeader(status)
	n, _ := w.ResponseWriter.Write(body)
	w.bytes += int64(n)
	_ = http.NewResponseController(w.ResponseWriter).Flush()
	return true
}

// written returns the response's status and size so far.
func (w *responseWriter) written() (status int, bytes int64, wrote bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status, w.bytes, w.wroteHeader
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// allowOrigin reports whether CORS allows origin.
func (s *Server) allowOrigin(origin string) bool {
	return origin != "" && (slices.Contains(s.cfg.AllowedOrigins, "*") || slices.Contains(s.cfg.AllowedOrigins, origin))
}

// corsHeaders marks a response to an allowed origin.
func (s *Server) corsHeaders(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Expose-Headers", "X-Request-ID, X-Response-Time, Retry-After")
}

// cors answers preflight requests and marks allowed origins. A preflight
// from an origin not on the list gets 204 without CORS headers, which the
// browser treats as a refusal; the server warns of it (warnRefusedOrigin).
func (s *Server) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		h := w.Header()
		h.Add("Vary", "Origin")
		allowed := s.allowOrigin(origin)
		if allowed {
			s.corsHeaders(h, origin)
		} else if origin != "" && strings.HasPrefix(r.URL.Path, "/api/") && !s.sameOrigin(r, origin) {
			s.warnRefusedOrigin(r, origin)
		}
		if r.Method == http.MethodOptions {
			if allowed {
				h.Add("Vary", "Access-Control-Request-Method")
				h.Add("Vary", "Access-Control-Request-Headers")
				h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, X-Request-ID")
				h.Set("Access-Control-Max-Age", "600")
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// recoverPanics turns a panic into a logged 500 internal_error (or, once
// the response has started, an aborted response).
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.Logger.ErrorContext(r.Context(), "panic",
				slog.String("request_id", requestID(r.Context())),
				slog.String("route", routeOf(r)),
				slog.String("panic", fmt.Sprint(v)),
				slog.String("stack", string(debug.Stack())))
			if rw, ok := w.(*responseWriter); ok {
				if _, _, wrote := rw.written(); wrote {
					return
				}
			}
			writeJSON(w, http.StatusInternalServerError, ErrorBody{
				Error: rag.EINTERNAL, Message: rag.ErrorMessage(nil), Details: map[string]any{},
			})
		}()
		next.ServeHTTP(w, r)
	})
}

// clientIP is the connection's remote host or, behind trusted proxies,
// the address the outermost of them appended to X-Forwarded-For: the
// TrustedProxies-th from the right. Everything left of it was written by
// the client and proves nothing. A list shorter than that gives its
// leftmost address.
func (s *Server) clientIP(r *http.Request) string {
	if s.cfg.TrustProxy {
		var hops []string
		for _, v := range r.Header.Values("X-Forwarded-For") {
			hops = append(hops, strings.Split(v, ",")...)
		}
		if len(hops) > 0 {
			i := max(len(hops)-max(s.cfg.TrustedProxies, 1), 0)
			if ip, err := netip.ParseAddr(strings.TrimSpace(hops[i])); err == nil {
				return ip.Unmap().String()
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap().String()
	}
	return host
}

// limit applies the rate limit of group to h, per client IP.
func (s *Server) limit(group string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ip := ""
		if info := infoOf(r.Context()); info != nil {
			ip = info.clientIP
		}
		if ok, wait := s.limiter.allow(group, ip); !ok {
			secs := int((wait + time.Second - 1) / time.Second)
			if secs < 1 {
				secs = 1
			}
			s.Metrics.rateLimited.WithLabelValues(routeOf(r)).Inc()
			err := rag.Errorf(rag.ERATELIMITED, "Too many requests; retry in %d seconds.", secs)
			err.Details = map[string]any{"retry_after_seconds": secs}
			s.writeError(w, r, err)
			return
		}
		h(w, r)
	}
}

// requireAdmin checks "Authorization: Bearer <AdminToken>" when a token is
// configured, in constant time.
func (s *Server) requireAdmin(h http.HandlerFunc) http.HandlerFunc {
	if s.cfg.AdminToken == "" {
		return h
	}
	want := sha256.Sum256([]byte(s.cfg.AdminToken))
	return func(w http.ResponseWriter, r *http.Request) {
		scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		got := sha256.Sum256([]byte(strings.TrimSpace(token)))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="textbook-rag"`)
			s.writeError(w, r, rag.Errorf(rag.EUNAUTHORIZED, "A valid admin token is required."))
			return
		}
		h(w, r)
	}
}
