package http

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/textbook-rag/rag"
)

// AdminSessionTTL is how long a sign-in to the course report lasts: a
// working day. A copied cookie stops working when it ends, or when its
// session signs out.
const AdminSessionTTL = 8 * time.Hour

// maxSignedOut bounds the signed-out sessions remembered (each only until
// it would have expired anyway).
const maxSignedOut = 10000

// An admin session's cookie is "expiry.nonce.mac": when it ends (Unix
// seconds), a random nonce, and an HMAC of both keyed by the admin token,
// so that it cannot be forged or extended, and it dies with the token.
func (s *Server) newAdminSession() string {
	var n [16]byte
	_, _ = rand.Read(n[:])
	exp := strconv.FormatInt(s.Now().Add(AdminSessionTTL).Unix(), 10)
	nonce := hex.EncodeToString(n[:])
	return exp + "." + nonce + "." + s.adminMAC(exp, nonce)
}

func (s *Server) adminMAC(exp, nonce string) string {
	m := hmac.New(sha256.New, []byte(s.cfg.AdminToken))
	m.Write([]byte("textbook-rag admin session\x00" + exp + "\x00" + nonce))
	return hex.EncodeToString(m.Sum(nil))
}

// adminSession checks a cookie's value: its nonce and expiry when it is a
// live session of this token that has not signed out. A store that cannot
// say whether it signed out fails the check: signing in again is cheap.
func (s *Server) adminSession(ctx context.Context, v string) (nonce string, exp time.Time, ok bool) {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return "", exp, false
	}
	if !hmac.Equal([]byte(parts[2]), []byte(s.adminMAC(parts[0], parts[1]))) {
		return "", exp, false
	}
	sec, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil {
		return "", exp, false
	}
	exp = time.Unix(sec, 0)
	if !s.Now().Before(exp) || s.signedOut.has(parts[1], s.Now()) {
		return "", exp, false
	}
	if s.SignOuts != nil {
		out, err := s.SignOuts.SignedOut(ctx, parts[1])
		if err != nil {
			s.Logger.Warn("admin session: the sign-outs could not be read", slog.String("error", err.Error()))
		}
		if out || err != nil {
			return "", exp, false
		}
	}
	return parts[1], exp, true
}

// signedOut remembers the sessions that signed out, until they expire.
type signedOut struct {
	mu sync.Mutex
	m  map[string]time.Time // nonce → the session's expiry
}

func (so *signedOut) add(nonce string, exp, now time.Time) {
	so.mu.Lock()
	defer so.mu.Unlock()
	if so.m == nil {
		so.m = map[string]time.Time{}
	}
	for n, e := range so.m {
		if !now.Before(e) {
			delete(so.m, n)
		}
	}
	if len(so.m) < maxSignedOut {
		so.m[nonce] = exp
	}
}

func (so *signedOut) has(nonce string, now time.Time) bool {
	so.mu.Lock()
	defer so.mu.Unlock()
	e, ok := so.m[nonce]
	return ok && now.Before(e)
}

// overTLS reports whether the request reached the client's end over TLS:
// directly, or, behind a trusted proxy (--trust-proxy), as that proxy's
// X-Forwarded-Proto says. The admin cookie is Secure then.
func (s *Server) overTLS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if !s.cfg.TrustProxy {
		return false
	}
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	return strings.EqualFold(strings.TrimSpace(proto), "https")
}

// handleLogout answers POST /admin/logout: the session ends, here and for
// any copy of its cookie, and the browser forgets it. With SignOuts the
// end is stored, so it outlasts a restart; when it cannot be stored the
// reader is told to try again.
func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: adminCookie, Value: "", Path: "/admin", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.overTLS(r)})
	if c, err := r.Cookie(adminCookie); err == nil {
		if nonce, exp, ok := s.adminSession(r.Context(), c.Value); ok {
			s.signedOut.add(nonce, exp, s.Now())
			if s.SignOuts != nil {
				ctx, cancel := context.WithTimeout(r.Context(), s.cfg.HistoryTimeout)
				defer cancel()
				if err := s.SignOuts.SignOut(ctx, nonce, exp); err != nil {
					s.writeError(w, r, rag.WrapError(rag.EUNAVAILABLE, "The sign-out could not be recorded; please sign out again.", err))
					return
				}
			}
		}
	}
	http.Redirect(w, r, "/admin/report", http.StatusSeeOther)
}
