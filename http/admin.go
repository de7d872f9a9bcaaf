package http

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/report"
)

// adminCookie holds a browser's admin session (see newAdminSession):
// signed with the token, never the token itself, and ending.
const adminCookie = "textbook_rag_admin"

// isAdmin reports whether the request carries the admin token (bearer)
// or the cookie the login form sets.
func (s *Server) isAdmin(r *http.Request) bool {
	if s.cfg.AdminToken == "" {
		return false
	}
	want := sha256.Sum256([]byte(s.cfg.AdminToken))
	if scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		got := sha256.Sum256([]byte(strings.TrimSpace(token)))
		return subtle.ConstantTimeCompare(got[:], want[:]) == 1
	}
	c, err := r.Cookie(adminCookie)
	if err != nil {
		return false
	}
	_, _, ok := s.adminSession(r.Context(), c.Value)
	return ok
}

// handleReport answers GET /admin/report?since=7d: the course report as
// a page, or as JSON with format=json. It needs the admin token: the
// report shows what students asked. Without a configured token it is off.
func (s *Server) handleReport(w http.ResponseWriter, r *http.Request) {
	if s.Report == nil || s.Report.History == nil {
		s.writeError(w, r, rag.Errorf(rag.EUNAVAILABLE, "The course report is not available."))
		return
	}
	// A browser opening the address gets the sign-in page; an API client
	// (JSON, or any type but HTML, or a bearer token) the JSON error.
	browser := r.Header.Get("Authorization") == "" && r.URL.Query().Get("format") != "json" && acceptsHTML(r.Header.Get("Accept"))
	if s.cfg.AdminToken == "" {
		const off = "The course report needs an admin token: start the server with --admin-token."
		if browser {
			s.loginPage(w, http.StatusUnauthorized, loginData{Off: true})
			return
		}
		s.writeError(w, r, rag.Errorf(rag.EUNAUTHORIZED, off))
		return
	}
	if !s.isAdmin(r) {
		if browser {
			s.loginPage(w, http.StatusUnauthorized, loginData{})
			return
		}
		s.writeError(w, r, rag.Errorf(rag.EUNAUTHORIZED, "A valid admin token is required."))
		return
	}
	since := r.URL.Query().Get("since")
	if since == "" {
		since = "7d"
	}
	d, err := report.ParseSince(since)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	format := r.URL.Query().Get("format")
	if format != "" && format != "json" && format != "html" {
		s.writeError(w, r, invalid("format", "format must be html or json"))
		return
	}
	rep, err := s.Report.Build(r.Context(), d)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = rag.WrapError(rag.EUNAVAILABLE, "The chat history did not answer in time; please try again.", err)
		}
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	if format == "json" {
		writeJSON(w, http.StatusOK, rep)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	if err := s.Report.WriteHTML(w, rep, since); err != nil {
		s.Logger.ErrorContext(r.Context(), "report page", "error", err.Error())
	}
}

// handleLogin answers POST /admin/login (a form with the admin token):
// the right token sets the admin cookie and goes back to the report.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	if s.cfg.AdminToken == "" {
		s.writeError(w, r, rag.Errorf(rag.EUNAUTHORIZED, "The course report needs an admin token: start the server with --admin-token."))
		return
	}
	const maxForm = 4 << 10
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			e := rag.Errorf(ETOOLARGE, "the login form is larger than %d bytes", maxForm)
			e.Details = map[string]any{"max_bytes": maxForm}
			s.writeError(w, r, e)
			return
		}
		s.writeError(w, r, rag.Errorf(rag.EINVALID, "the login form could not be read"))
		return
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(r.PostForm.Get("token"))))
	want := sha256.Sum256([]byte(s.cfg.AdminToken))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		s.loginPage(w, http.StatusUnauthorized, loginData{Problem: "That is not the admin token."})
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: adminCookie, Value: s.newAdminSession(), Path: "/admin", MaxAge: int(AdminSessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.overTLS(r),
	})
	http.Redirect(w, r, "/admin/report", http.StatusSeeOther)
}

// loginPage asks a browser for the admin token.
func (s *Server) loginPage(w http.ResponseWriter, status int, d loginData) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	w.WriteHeader(status)
	_ = loginTemplate.Execute(w, d)
}

// acceptsHTML reports whether an Accept header asks for HTML at least as
// much as for JSON: a browser's does ("text/html,...,*/*;q=0.8"), an API
// client's ("application/json", curl's "*/*") does not.
func acceptsHTML(accept string) bool {
	var html, json float64
	for _, part := range strings.Split(accept, ",") {
		typ, params, _ := strings.Cut(part, ";")
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(typ)) {
		case "text/html", "application/xhtml+xml":
			html = max(html, q)
		case "application/json":
			json = max(json, q)
		}
	}
	return html > 0 && html >= json
}
