package http

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// A site that embeds the widget but is missing from the CORS allow-list
// only shows its readers a failed request: the browser refuses the
// response, and the server's access log shows an ordinary status. The
// server warns instead, naming the origin and the flag that allows it, at
// most once per origin per corsWarnEvery, so that a busy site's readers
// cannot flood the log.

// corsWarnEvery is how often one refused origin is warned of.
const corsWarnEvery = 10 * time.Minute

// corsWarnOrigins bounds the origins remembered: any site may send any
// Origin, and past this many fresh ones new origins are not warned of
// until the old ones' warnings expire.
const corsWarnOrigins = 256

// originWarner decides when a refused origin is warned of again.
type originWarner struct {
	mu   sync.Mutex
	last map[string]originWarned
}

type originWarned struct {
	at         time.Time
	suppressed int // requests refused since the warning
}

// allow reports whether origin is to be warned of now, with the number of
// its refusals not warned of since its last warning.
func (w *originWarner) allow(origin string, now time.Time) (bool, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last == nil {
		w.last = map[string]originWarned{}
	}
	if o, ok := w.last[origin]; ok && now.Sub(o.at) < corsWarnEvery {
		o.suppressed++
		w.last[origin] = o
		return false, 0
	} else if ok {
		w.last[origin] = originWarned{at: now}
		return true, o.suppressed
	}
	if len(w.last) >= corsWarnOrigins {
		for k, o := range w.last {
			if now.Sub(o.at) >= corsWarnEvery {
				delete(w.last, k)
			}
		}
		if len(w.last) >= corsWarnOrigins {
			return false, 0
		}
	}
	w.last[origin] = originWarned{at: now}
	return true, 0
}

// sameOrigin reports whether origin is the server's own (a browser sends
// Origin on its own POSTs too): its host is the request's Host, or, behind
// a trusted proxy, the host the proxy was asked for.
func (s *Server) sameOrigin(r *http.Request, origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	if s.cfg.TrustProxy {
		for _, h := range strings.Split(r.Header.Get("X-Forwarded-Host"), ",") {
			if strings.EqualFold(u.Host, strings.TrimSpace(h)) {
				return true
			}
		}
	}
	return false
}

// warnRefusedOrigin logs, rate-limited, a cross-origin request from an
// origin the allow-list lacks.
func (s *Server) warnRefusedOrigin(r *http.Request, origin string) {
	ok, suppressed := s.corsWarn.allow(origin, s.Now())
	if !ok {
		return
	}
	kind := "request"
	if r.Method == http.MethodOptions {
		kind = "preflight"
	}
	s.Logger.LogAttrs(context.WithoutCancel(r.Context()), slog.LevelWarn,
		"cross-origin "+kind+" refused: the site "+origin+" is not in --cors-origins, so readers' browsers there cannot reach the tutor; to allow it, add it to --cors-origins (env TEXTBOOK_RAG_CORS_ORIGINS)",
		slog.String("origin", origin),
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.String("request_id", requestID(r.Context())),
		slog.String("flag", "--cors-origins"),
		slog.Int("refused_since_last_warning", suppressed),
		slog.String("next_warning_after", corsWarnEvery.String()),
	)
}
