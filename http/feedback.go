package http

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/textbook-rag/rag"
)

// groupFeedback is the rate limiter's group of feedback requests: a
// separate budget, so that rating answers never costs a reader a question.
const groupFeedback = "feedback"

// handleFeedback answers POST /api/chat/messages/{id}/feedback with
// {"session_id", "rating", "comment"}: it stores the reader's rating of
// an answer of their session and returns the feedback as stored.
func (s *Server) handleFeedback(w http.ResponseWriter, r *http.Request) {
	store := s.Feedback
	if store == nil {
		store, _ = s.History.(rag.FeedbackStore)
	}
	if store == nil {
		s.writeError(w, r, rag.Errorf(rag.EUNAVAILABLE, "Feedback is not available."))
		return
	}
	mid, ok := s.pathID(w, r, "message id must be a UUID")
	if !ok {
		return
	}
	body, err := s.readBody(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in struct {
		SessionID *string `json:"session_id"`
		Rating    *string `json:"rating"`
		Comment   *string `json:"comment"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&in); err != nil {
		s.writeError(w, r, jsonError(err))
		return
	}
	if _, err := dec.Token(); err != io.EOF {
		s.writeError(w, r, rag.Errorf(rag.EINVALID, "the request body must hold a single JSON object"))
		return
	}
	for field, v := range map[string]*string{"session_id": in.SessionID, "rating": in.Rating} {
		if v == nil || *v == "" {
			s.writeError(w, r, invalid(field, "%s is required", field))
			return
		}
	}
	f := rag.Feedback{Rating: rag.Rating(*in.Rating)}
	if in.Comment != nil {
		f.Comment = *in.Comment
	}
	if _, ok := rag.ParseUUID(*in.SessionID); !ok {
		s.writeError(w, r, invalid("session_id", "session_id must be a UUID"))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.HistoryTimeout)
	defer cancel()
	stored, err := store.SetFeedback(ctx, *in.SessionID, mid, f)
	if err != nil {
		switch {
		case rag.ErrorCode(err) == rag.ENOTFOUND:
			// Another session's answer is "not found" too: whether an id
			// exists elsewhere is none of this reader's business.
			err = rag.WrapError(rag.ENOTFOUND, "This session has no message with this id.", err)
		case errors.Is(err, context.DeadlineExceeded):
			err = rag.WrapError(rag.EUNAVAILABLE, "The chat history did not answer in time; please try again.", err)
		}
		s.writeError(w, r, err)
		return
	}
	s.Metrics.ObserveFeedback(stored.Rating)
	writeJSON(w, http.StatusOK, stored)
}
