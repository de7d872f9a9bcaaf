package rag

import (
	"errors"
	"fmt"
)

// Error codes. The HTTP layer maps each to a status and to the API's
// error string; nothing else should depend on an error's text.
const (
	EINVALID         = "validation_error"
	EQUESTIONTOOLONG = "question_too_long"
	ESELECTEDTOOLONG = "selected_text_too_long"
	ENOTFOUND        = "not_found"
	ERATELIMITED     = "rate_limited"
	EINTERNAL        = "internal_error"
	EQDRANT          = "qdrant_error"
	EOPENAI          = "openai_error"
	EUNAVAILABLE     = "unavailable"
	EUNAUTHORIZED    = "unauthorized"
	// ESESSIONFULL: the session holds as many messages as it may; the
	// reader starts a new one.
	ESESSIONFULL = "session_full"
)

// Error is an error a client may see: a code and a message safe to show.
type Error struct {
	Code    string
	Message string
	Details map[string]any
	// Err is the underlying cause, for logs only.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WrapError returns an *Error with the given code that keeps err as cause.
func WrapError(code, message string, err error) *Error {
	return &Error{Code: code, Message: message, Err: err}
}

// ErrorCode returns the code of the first *Error in err's chain, or
// EINTERNAL for any other non-nil error.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the client-safe message of err.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "An internal error occurred."
}

// SessionFull is the ESESSIONFULL *Error of a session capped at max
// messages.
func SessionFull(max int) *Error {
	e := Errorf(ESESSIONFULL, "This chat session has reached its limit of %d messages; please start a new session.", max)
	e.Details = map[string]any{"field": "session_id", "max_messages": max}
	return e
}
