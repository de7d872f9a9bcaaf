package rag

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Rating is a reader's verdict on one answer.
type Rating string

// The two ratings a reader can give an answer.
const (
	Helpful    Rating = "helpful"
	NotHelpful Rating = "not_helpful"
)

// Ratings lists the valid ratings, in the order reports show them.
var Ratings = []Rating{Helpful, NotHelpful}

// MaxFeedbackCommentChars bounds a feedback comment: a short note on what
// was missing, not an essay (the course team reads them one by one).
const MaxFeedbackCommentChars = 500

// ENOFEEDBACK: the message cannot take feedback (a question or a refusal;
// only answers are rated, and refusals are reported from their reasons).
const ENOFEEDBACK = "feedback_not_allowed"

// Feedback is a reader's rating of one answer, with an optional comment.
// A reader may change it; UpdatedAt is the time of the last change.
type Feedback struct {
	MessageID string    `json:"message_id"`
	Rating    Rating    `json:"rating"`
	Comment   string    `json:"comment"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Normalize trims the comment and validates the feedback at the edge: an
// EINVALID *Error naming the field otherwise.
func (f *Feedback) Normalize() error {
	switch f.Rating {
	case Helpful, NotHelpful:
	default:
		e := Errorf(EINVALID, "rating must be %q or %q", Helpful, NotHelpful)
		e.Details = map[string]any{"field": "rating"}
		return e
	}
	if !utf8.ValidString(f.Comment) {
		e := Errorf(EINVALID, "comment must be valid UTF-8")
		e.Details = map[string]any{"field": "comment"}
		return e
	}
	f.Comment = strings.TrimSpace(f.Comment)
	if n := utf8.RuneCountInString(f.Comment); n > MaxFeedbackCommentChars {
		e := Errorf(EINVALID, "comment is %d characters long; the limit is %d", n, MaxFeedbackCommentChars)
		e.Details = map[string]any{"field": "comment", "max_chars": MaxFeedbackCommentChars}
		return e
	}
	for _, r := range f.Comment {
		if unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
			e := Errorf(EINVALID, "comment must not hold control characters")
			e.Details = map[string]any{"field": "comment"}
			return e
		}
	}
	return nil
}

// FeedbackStore keeps readers' feedback with the answers it rates.
type FeedbackStore interface {
	// SetFeedback stores (or replaces) the feedback on the answer
	// messageID of session sessionID and returns it as stored. Errors:
	// EINVALID for bad ids or feedback, ENOTFOUND when the session has no
	// such message (another session's message is not found either: its
	// existence is not the caller's business), ENOFEEDBACK when the
	// message is a question or a refusal.
	SetFeedback(ctx context.Context, sessionID, messageID string, f Feedback) (Feedback, error)
}

// Exchange is one stored question and its answer or refusal, as the
// course report reads them. SessionID is there only to match the refusal
// log's lines; a report never shows it.
type Exchange struct {
	// Seq orders exchanges within a store (the answer's insertion order).
	Seq        int64
	SessionID  string
	Question   string
	AskedAt    time.Time
	AnswerID   string
	Answer     string
	AnsweredAt time.Time
	Sources    []Source
	WasRefusal bool
	// RefusalReason is "" on an answer.
	RefusalReason RefusalReason
	Feedback      *Feedback
}

// ExchangeCursor is where a page of exchanges ended: the next page starts
// after it. The zero cursor starts at the beginning of the range.
type ExchangeCursor struct {
	At  time.Time
	Seq int64
}

// ExchangeReader reads stored exchanges in pages, for reports over
// histories too large to hold in memory.
type ExchangeReader interface {
	// ExchangePage returns at most limit exchanges answered in [from, to),
	// ordered by answer time then insertion order, starting after cursor
	// (keyset pagination), and the cursor of the last one. Fewer than
	// limit exchanges means the range is exhausted.
	ExchangePage(ctx context.Context, from, to time.Time, after ExchangeCursor, limit int) ([]Exchange, ExchangeCursor, error)
}

// CheckFeedbackTarget says whether a stored message may be rated: only
// answers may, not questions and not refusals (an ENOFEEDBACK *Error).
func CheckFeedbackTarget(role string, wasRefusal bool) error {
	switch {
	case role != "assistant":
		return Errorf(ENOFEEDBACK, "only answers can be rated; this message is a question")
	case wasRefusal:
		return Errorf(ENOFEEDBACK, "only answers can be rated; this message is a refusal")
	}
	return nil
}
