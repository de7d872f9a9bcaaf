package rag

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what a reader may send, shared by the HTTP API and the CLI.
const (
	MaxQuestionChars     = 1000
	MaxSelectedTextChars = 5000
)

// RefusalReason is the refusal spec's enum.
type RefusalReason string

const (
	EmptyRetrieval           RefusalReason = "empty_retrieval"
	InsufficientContext      RefusalReason = "insufficient_context"
	OutOfScope               RefusalReason = "out_of_scope"
	SelectedTextInsufficient RefusalReason = "selected_text_insufficient"
)

// RefusalReasons lists every reason in the spec's order.
var RefusalReasons = []RefusalReason{EmptyRetrieval, InsufficientContext, OutOfScope, SelectedTextInsufficient}

// ChatRequest is a reader's question, optionally about text they selected.
type ChatRequest struct {
	Question     string `json:"question"`
	SelectedText string `json:"selected_text,omitempty"`
	SessionID    string `json:"session_id,omitempty"`
	// RequestID, chosen by the client once per question and sent again
	// with each retry of it, makes the request idempotent within its
	// session: a retry of a question already stored there gets the stored
	// exchange back, and nothing is stored twice (see QuestionID). A
	// request that names no session opens a new one, retry or not.
	RequestID string `json:"request_id,omitempty"`
}

// MaxRequestIDChars bounds a client's request id.
const MaxRequestIDChars = 128

// ChatResponse is an answer or a refusal; a refusal is a normal response,
// never an error.
type ChatResponse struct {
	Answer        string         `json:"answer"`
	WasRefusal    bool           `json:"was_refusal"`
	Sources       []Source       `json:"sources"`
	RefusalReason *RefusalReason `json:"refusal_reason"`
	SessionID     string         `json:"session_id"`
	// MessageID is the stored answer's id, which feedback on the answer
	// names; set by the server once the answer is decided.
	MessageID string `json:"message_id,omitempty"`
	// Retrieval, on a refusal, is what the retriever found: the refusal
	// log records it once the refusal is delivered. Never sent.
	Retrieval *Retrieval `json:"-"`
}

// Retrieval is what retrieval found for a refused question.
type Retrieval struct {
	Chunks int
	// MaxScore is the best chunk's score; nil when nothing was retrieved.
	MaxScore *float64
}

// Normalize trims the request and validates it at the edge. It returns an
// *Error with code EINVALID, EQUESTIONTOOLONG or ESELECTEDTOOLONG, whose
// details name the field (and its limit, for the lengths).
func (r *ChatRequest) Normalize() error {
	if !utf8.ValidString(r.Question) || !utf8.ValidString(r.SelectedText) || !utf8.ValidString(r.SessionID) {
		return Errorf(EINVALID, "question and selected_text must be valid UTF-8")
	}
	r.Question = strings.TrimSpace(r.Question)
	r.SessionID = strings.TrimSpace(r.SessionID)
	if r.Question == "" {
		return fieldError(EINVALID, "question", "question is required")
	}
	for _, f := range []struct{ name, text string }{{"question", r.Question}, {"selected_text", r.SelectedText}} {
		if err := checkControls(f.name, f.text); err != nil {
			return err
		}
	}
	if n := utf8.RuneCountInString(r.Question); n > MaxQuestionChars {
		e := fieldError(EQUESTIONTOOLONG, "question", "question has %d characters; the limit is %d", n, MaxQuestionChars)
		e.Details["max_chars"] = MaxQuestionChars
		return e
	}
	if strings.TrimSpace(r.SelectedText) == "" {
		r.SelectedText = ""
	}
	if n := utf8.RuneCountInString(r.SelectedText); n > MaxSelectedTextChars {
		e := fieldError(ESELECTEDTOOLONG, "selected_text", "selected_text has %d characters; the limit is %d", n, MaxSelectedTextChars)
		e.Details["max_chars"] = MaxSelectedTextChars
		return e
	}
	r.RequestID = strings.TrimSpace(r.RequestID)
	if err := checkRequestID(r.RequestID); err != nil {
		return err
	}
	if r.SessionID != "" {
		id, ok := ParseUUID(r.SessionID)
		if !ok {
			return fieldError(EINVALID, "session_id", "session_id must be a UUID (8-4-4-4-12 hex digits)")
		}
		r.SessionID = id
	}
	return nil
}

// checkRequestID accepts a request id of letters, digits and ".-_:",
// at most MaxRequestIDChars of them ("" is none).
func checkRequestID(id string) error {
	if len(id) > MaxRequestIDChars {
		return fieldError(EINVALID, "request_id", "request_id has %d characters; the limit is %d", len(id), MaxRequestIDChars)
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-_:", c)) {
			return fieldError(EINVALID, "request_id", "request_id may hold only letters, digits and . - _ :")
		}
	}
	return nil
}

// checkControls rejects control characters other than tab, line feed and
// carriage return: no reader types them, Postgres cannot store a NUL, and
// caught here they cost a 400 instead of an answer that cannot be saved.
func checkControls(field, text string) error {
	n := 0
	for _, c := range text {
		n++
		if unicode.IsControl(c) && c != '\t' && c != '\n' && c != '\r' {
			return fieldError(EINVALID, field, "%s must not contain control characters (U+%04X at character %d)", field, c, n)
		}
	}
	return nil
}

// Refusal builds a refusal response; sources are always empty.
func Refusal(reason RefusalReason, message, sessionID string) ChatResponse {
	r := reason
	return ChatResponse{Answer: message, WasRefusal: true, Sources: []Source{}, RefusalReason: &r, SessionID: sessionID}
}

// fieldError is an *Error about one field of the request, named in its
// details so that clients need not read the message.
func fieldError(code, field, format string, args ...any) *Error {
	e := Errorf(code, format, args...)
	e.Details = map[string]any{"field": field}
	return e
}
