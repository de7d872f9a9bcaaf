package http

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/textbook-rag/rag"
)

// groupSearch is the rate limiter's group of searches: a budget of their
// own at the chat rate, so that the sections a widget looks up after a
// refusal never cost the reader a question.
const groupSearch = "search"

// searchOut is GET /api/search's body.
type searchOut struct {
	Query   string       `json:"query"`
	Results []sectionOut `json:"results"`
}

// sectionOut is one section a search found. Link is the section on the
// reader's page of this server; a site elsewhere links to
// <its docs URL>/<path>#<anchor>, as for a source.
type sectionOut struct {
	Title   string  `json:"title"`
	Chapter string  `json:"chapter"`
	Module  string  `json:"module"`
	Path    string  `json:"path"`
	Anchor  string  `json:"anchor"`
	Link    string  `json:"link"`
	Score   float64 `json:"score"`
}

// handleSearch answers GET /api/search?q=…[&limit=…][&confident=1]: the
// book's sections closest to q, as a site search does. After an
// insufficient_context refusal the widget shows the confident ones as the
// places the book discusses the question (none when the book's evidence
// is thin: an off-topic question gets no unrelated links); the refusal
// itself stays as the spec writes it.
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	if s.Search == nil {
		s.writeError(w, r, rag.Errorf(rag.EUNAVAILABLE, "Search is not available."))
		return
	}
	v := r.URL.Query()
	q := rag.SearchQuery{Q: v.Get("q")}
	if l, ok := v["limit"]; ok {
		n, err := strconv.Atoi(l[0])
		if err != nil || n < 1 {
			s.writeError(w, r, limitError(rag.MaxSearchResults))
			return
		}
		q.Limit = n
	}
	if c, ok := v["confident"]; ok {
		b, err := strconv.ParseBool(c[0])
		if err != nil {
			s.writeError(w, r, invalid("confident", "confident must be true or false (1 or 0)"))
			return
		}
		q.Confident = b
	}
	if err := q.Normalize(); err != nil {
		s.writeError(w, r, err)
		return
	}
	hits, err := s.Search.Search(r.Context(), q.Q, q.Limit)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = rag.WrapError(rag.EUNAVAILABLE, "The search took too long; please try again.", err)
		}
		s.writeError(w, r, err)
		return
	}
	out := searchOut{Query: q.Q, Results: make([]sectionOut, 0, len(hits))}
	for _, h := range hits {
		if q.Confident && h.Score < s.ConfidentScore {
			continue
		}
		link := "/docs/" + strings.TrimPrefix(h.PagePath, "/")
		if h.Anchor != "" {
			link += "#" + h.Anchor
		}
		out.Results = append(out.Results, sectionOut{
			Title: h.Heading, Chapter: h.ChapterTitle, Module: h.ModuleTitle,
			Path: h.PagePath, Anchor: h.Anchor, Link: link,
			Score: math.Round(h.Score*1000) / 1000,
		})
	}
	writeJSON(w, http.StatusOK, out)
}
