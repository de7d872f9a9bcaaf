package http

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/textbook-rag/rag"
)

// Error codes that only the HTTP layer produces. The domain's codes
// (rag.EINVALID and the others) cover everything else.
const (
	// EMETHOD: the path exists but not for this method (405).
	EMETHOD = "method_not_allowed"
	// ETOOLARGE: the request body is larger than Config.MaxBodyBytes (413).
	ETOOLARGE = "payload_too_large"
	// EMEDIATYPE: the request body is not application/json (415).
	EMEDIATYPE = "unsupported_media_type"
	// EHEADERSTOOLARGE: the request headers are over the server's limit
	// (431).
	EHEADERSTOOLARGE = "headers_too_large"
	// EEXPECTATION: an Expect header other than 100-continue (417).
	EEXPECTATION = "expectation_failed"
)

// statusOf maps an error code to its HTTP status. A code missing from the
// table is answered as internal_error.
//
//	validation_error        400  bad JSON, bad UUID, invalid UTF-8, missing field
//	question_too_long       400  question over rag.MaxQuestionChars
//	selected_text_too_long  400  selected_text over rag.MaxSelectedTextChars
//	unauthorized            401  missing or wrong admin token
//	not_found               404  unknown session or path
//	method_not_allowed      405  (with Allow)
//	session_full            409  the session is at its message cap
//	feedback_not_allowed    422  feedback on a question or a refusal
//	payload_too_large       413  body over Config.MaxBodyBytes
//	unsupported_media_type  415  Content-Type not application/json (utf-8)
//	headers_too_large       431  request headers over 64 KiB
//	rate_limited            429  (with Retry-After seconds)
//	internal_error          500
//	qdrant_error            502
//	openai_error            502
//	unavailable             503  also deadlines exceeded (with Retry-After: 2)
var statusOf = map[string]int{
	rag.EINVALID:         http.StatusBadRequest,
	rag.EQUESTIONTOOLONG: http.StatusBadRequest,
	rag.ESELECTEDTOOLONG: http.StatusBadRequest,
	rag.EUNAUTHORIZED:    http.StatusUnauthorized,
	rag.ENOTFOUND:        http.StatusNotFound,
	EMETHOD:              http.StatusMethodNotAllowed,
	rag.ESESSIONFULL:     http.StatusConflict,
	rag.ENOFEEDBACK:      http.StatusUnprocessableEntity,
	ETOOLARGE:            http.StatusRequestEntityTooLarge,
	EMEDIATYPE:           http.StatusUnsupportedMediaType,
	EHEADERSTOOLARGE:     http.StatusRequestHeaderFieldsTooLarge,
	EEXPECTATION:         http.StatusExpectationFailed,
	rag.ERATELIMITED:     http.StatusTooManyRequests,
	rag.EINTERNAL:        http.StatusInternalServerError,
	rag.EQDRANT:          http.StatusBadGateway,
	rag.EOPENAI:          http.StatusBadGateway,
	rag.EUNAVAILABLE:     http.StatusServiceUnavailable,
}

// StatusCode returns the HTTP status for an error code (500 when unknown).
func StatusCode(code string) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// ErrorBody is the JSON body of every error response and of the stream's
// error event.
type ErrorBody struct {
	Error   string         `json:"error"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// errorBody turns err into what a client may see: the code, the safe
// message and the details. Unknown errors become internal_error with a
// generic message; err.Error() is never part of it.
func errorBody(err error) (ErrorBody, int) {
	if errors.Is(err, context.DeadlineExceeded) && rag.ErrorCode(err) == rag.EINTERNAL {
		err = rag.WrapError(rag.EUNAVAILABLE, "The request took too long; please try again.", err)
	}
	code := rag.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok {
		code, status = rag.EINTERNAL, http.StatusInternalServerError
	}
	body := ErrorBody{Error: code, Message: rag.ErrorMessage(err), Details: map[string]any{}}
	var e *rag.Error
	if errors.As(err, &e) && e.Details != nil {
		body.Details = e.Details
	}
	if !ok {
		body.Message = rag.ErrorMessage(nil)
	}
	return body, status
}

// isCanceled reports whether err (or the request) ended because the client
// went away: that is neither a server error nor worth an error log.
func isCanceled(r *http.Request, err error) bool {
	return errors.Is(err, context.Canceled) || r.Context().Err() == context.Canceled
}

// retryUnavailable is the Retry-After, in seconds, of a 503: a store that
// stalled, refused or ran out of disk is worth asking again soon, and
// clients that honour the header spread their retries.
const retryUnavailable = 2

// writeError is the one place that writes an error response. 5xx errors
// are logged with their full text; the client only sees the safe message.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if shuttingDown(r) {
		// Whatever failed, it failed because the shutdown cancelled it.
		err = rag.WrapError(rag.EUNAVAILABLE, rag.ErrorMessage(errShuttingDown), err)
	}
	if isCanceled(r, err) && !shuttingDown(r) {
		s.clientGone(r, err)
		return
	}
	body, status := errorBody(err)
	s.logError(r, err, status)
	switch status {
	case http.StatusTooManyRequests:
		if v, ok := body.Details["retry_after_seconds"]; ok {
			w.Header().Set("Retry-After", fmt.Sprint(v))
		}
	case http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", fmt.Sprint(retryUnavailable))
	}
	writeJSON(w, status, body)
}

func (s *Server) logError(r *http.Request, err error, status int) {
	attrs := []any{
		slog.Int("status", status),
		slog.String("code", rag.ErrorCode(err)),
		slog.String("error", err.Error()),
		slog.String("request_id", requestID(r.Context())),
		slog.String("route", routeOf(r)),
	}
	switch {
	case shuttingDown(r):
		s.Logger.WarnContext(r.Context(), "request ended by the shutdown", attrs...)
	case status >= 500:
		s.Logger.ErrorContext(r.Context(), "request failed", attrs...)
	default:
		s.Logger.DebugContext(r.Context(), "request rejected", attrs...)
	}
}

// clientGone records that the client disconnected: the access log shows
// status 499 and nothing is written. A request the shutdown ended keeps
// the status it was answered with.
func (s *Server) clientGone(r *http.Request, err error) {
	if shuttingDown(r) {
		s.Logger.InfoContext(r.Context(), "request ended by the shutdown",
			slog.String("request_id", requestID(r.Context())),
			slog.String("route", routeOf(r)))
		return
	}
	if info := infoOf(r.Context()); info != nil {
		info.canceled = true
	}
	s.Logger.InfoContext(r.Context(), "client disconnected",
		slog.String("request_id", requestID(r.Context())),
		slog.String("route", routeOf(r)),
		slog.Any("cause", err))
}

// writeJSON writes v as the JSON body with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data = []byte(`{"error":"internal_error","message":"An internal error occurred.","details":{}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// marshal encodes v without HTML escaping (answers often hold code).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
