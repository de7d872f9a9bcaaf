package http

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/textbook-rag/rag"
)

// chunkPreviewChars is how much of a chunk's text the content listing shows.
const chunkPreviewChars = 200

// messageOut is one message of GET /api/chat/sessions/{id}/messages.
type messageOut struct {
	ID string `json:"id"`
	// QuestionID is the id of the question an answer answers; null on a
	// question.
	QuestionID    *string            `json:"question_id"`
	Role          string             `json:"role"`
	Content       string             `json:"content"`
	Sources       []rag.Source       `json:"sources"`
	WasRefusal    bool               `json:"was_refusal"`
	RefusalReason *rag.RefusalReason `json:"refusal_reason"`
	CreatedAt     time.Time          `json:"created_at"`
}

// pathID is the request path's {id}, a UUID; when it is not one, pathID
// writes an EINVALID error with message naming the field, and ok is false.
func (s *Server) pathID(w http.ResponseWriter, r *http.Request, message string) (id string, ok bool) {
	id, ok = rag.ParseUUID(r.PathValue("id"))
	if !ok {
		s.writeError(w, r, invalid("id", "%s", message))
	}
	return id, ok
}

// handleMessages answers GET /api/chat/sessions/{id}/messages with one
// page of the session: ?limit= (default rag.DefaultMessagesPage, at most
// rag.MaxMessagesPage), and at most one of ?before= and ?after=, a message
// id of the session. Without a cursor it is the latest page. However long
// the session, one request reads and holds one page.
func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request) {
	if s.History == nil {
		s.writeError(w, r, rag.Errorf(rag.EUNAVAILABLE, "The chat history is not available."))
		return
	}
	id, ok := s.pathID(w, r, "session id must be a UUID (8-4-4-4-12 hex digits)")
	if !ok {
		return
	}
	q, err := pageQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.HistoryTimeout)
	defer cancel()
	page, err := s.History.MessagesPage(ctx, id, q)
	if err != nil {
		switch {
		case rag.ErrorCode(err) == rag.ENOTFOUND:
			err = rag.WrapError(rag.ENOTFOUND, "No chat session has this id.", err)
		case errors.Is(err, context.DeadlineExceeded):
			err = rag.WrapError(rag.EUNAVAILABLE, "The chat history did not answer in time; please try again.", err)
		}
		s.writeError(w, r, err)
		return
	}
	out := make([]messageOut, 0, len(page.Messages))
	for _, m := range page.Messages {
		src := m.Sources
		if src == nil {
			src = []rag.Source{}
		}
		var qid *string
		if m.QuestionID != "" {
			qid = &m.QuestionID
		}
		out = append(out, messageOut{
			ID:            m.ID,
			QuestionID:    qid,
			Role:          m.Role,
			Content:       m.Content,
			Sources:       src,
			WasRefusal:    m.WasRefusal,
			RefusalReason: m.RefusalReason,
			CreatedAt:     m.CreatedAt.UTC(),
		})
	}
	body := messagesOut{SessionID: id, Messages: out, Limit: q.Limit, HasMore: page.Older}
	if q.After != "" {
		body.HasMore = page.Newer
	}
	if n := len(out); n > 0 {
		if page.Older {
			body.NextBefore = &out[0].ID
		}
		if page.Newer {
			body.NextAfter = &out[n-1].ID
		}
	}
	writeJSON(w, http.StatusOK, body)
}

// messagesOut is the body of GET /api/chat/sessions/{id}/messages.
type messagesOut struct {
	SessionID string       `json:"session_id"`
	Messages  []messageOut `json:"messages"`
	Limit     int          `json:"limit"`
	// HasMore says that the session goes on in the direction read: older
	// messages for the latest page or a before page, newer for an after page.
	HasMore bool `json:"has_more"`
	// NextBefore is the cursor of the older page (?before=), NextAfter of
	// the newer one (?after=); null when there is none.
	NextBefore *string `json:"next_before"`
	NextAfter  *string `json:"next_after"`
}

// pageQuery reads ?limit=, ?before= and ?after=; a bad one is a
// validation_error naming it.
func pageQuery(r *http.Request) (rag.PageQuery, error) {
	v := r.URL.Query()
	q := rag.PageQuery{Limit: rag.DefaultMessagesPage, Before: v.Get("before"), After: v.Get("after")}
	if l, ok := v["limit"]; ok {
		n, err := strconv.Atoi(l[0])
		if err != nil || n < 1 || n > rag.MaxMessagesPage {
			return q, limitError(rag.MaxMessagesPage)
		}
		q.Limit = n
	}
	return q, q.Check()
}

// chunkOut is one chunk of GET /api/content/chunks.
type chunkOut struct {
	ID             string `json:"id"`
	Text           string `json:"text"`
	ModuleID       string `json:"module_id"`
	ChapterID      string `json:"chapter_id"`
	SectionHeading string `json:"section_heading"`
	ChunkIndex     int    `json:"chunk_index"`
}

// handleChunks answers GET /api/content/chunks?module_id=…[&chapter_id=…].
// module_id must be present; an empty value selects the book root.
func (s *Server) handleChunks(w http.ResponseWriter, r *http.Request) {
	if s.Chunks == nil {
		s.writeError(w, r, rag.Errorf(rag.EUNAVAILABLE, "The content index is not available."))
		return
	}
	q := r.URL.Query()
	mods, ok := q["module_id"]
	if !ok {
		s.writeError(w, r, invalid("module_id", "module_id is required (an empty value selects the book root)"))
		return
	}
	f := rag.ChunkFilter{ModuleID: mods[0], ChapterID: q.Get("chapter_id")}
	if !utf8.ValidString(f.ModuleID) || !utf8.ValidString(f.ChapterID) {
		s.writeError(w, r, rag.Errorf(rag.EINVALID, "module_id and chapter_id must be valid UTF-8"))
		return
	}
	chunks, err := s.Chunks.ListChunks(r.Context(), f)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]chunkOut, 0, len(chunks))
	for _, c := range chunks {
		out = append(out, chunkOut{
			ID:             c.ID,
			Text:           preview(c.Text, chunkPreviewChars),
			ModuleID:       c.ModuleID,
			ChapterID:      c.ChapterID,
			SectionHeading: c.SectionHeading,
			ChunkIndex:     c.ChunkIndex,
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"chunks": out, "total": len(out)})
}

// preview returns the first n runes of s.
func preview(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// handleHealth answers GET /health: every check is pinged concurrently
// with Config.HealthTimeout; one failure makes the answer 503 unhealthy,
// naming the first failing check (in Checks order) with a safe message.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	errs := make([]error, len(s.Checks))
	var wg sync.WaitGroup
	for i, c := range s.Checks {
		wg.Go(func() {
			errs[i] = s.ping(r.Context(), c)
		})
	}
	wg.Wait()

	body := map[string]any{
		"status":    "healthy",
		"version":   rag.Version,
		"timestamp": s.Now().UTC().Format(time.RFC3339),
	}
	status := http.StatusOK
	for i, c := range s.Checks {
		body[c.Name] = errs[i] == nil
		if errs[i] == nil || status != http.StatusOK {
			continue
		}
		status = http.StatusServiceUnavailable
		body["status"] = "unhealthy"
		body["error"] = c.Name + ": " + healthMessage(errs[i])
	}
	for i, c := range s.Checks {
		if errs[i] != nil {
			s.Logger.WarnContext(r.Context(), "health check failed",
				slog.String("check", c.Name), slog.Any("error", errs[i]),
				slog.String("request_id", requestID(r.Context())))
		}
	}
	writeJSON(w, status, body)
}

func (s *Server) ping(ctx context.Context, c Check) (err error) {
	if c.Ping == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.HealthTimeout)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			err = rag.Errorf(rag.EINTERNAL, "check panicked")
		}
	}()
	return c.Ping(ctx)
}

func healthMessage(err error) string {
	var e *rag.Error
	switch {
	case errors.As(err, &e):
		return e.Message
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	default:
		return "unavailable"
	}
}
