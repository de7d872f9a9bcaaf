package rag

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// StoredMessage is a validated message as a history store writes it.
type StoredMessage struct {
	ID            string
	Role          string
	Content       string
	Sources       string // JSON array, never null
	WasRefusal    bool
	RefusalReason *string // nil for an answer
	QuestionID    *string // the answer's question; nil for the question
	CreatedAt     time.Time
}

// NewID returns a new time-ordered UUID (version 7). Stores index
// sessions and messages by id; ids that grow with time are appended at the
// right edge of those indexes instead of landing on a random page each,
// which keeps a history write to a few pages.
//
// The id's 60-bit clock (milliseconds and a 12-bit fraction, as
// uuid.NewV7 lays them out) is claimed with a compare-and-swap rather than
// under uuid's process-wide mutex: a request makes four ids, and on many
// cores that mutex was one more place where requests queued.
func NewID() string {
	var u uuid.UUID
	// crypto/rand.Read does not fail (it crashes the program instead).
	_, _ = rand.Read(u[:])
	nano := time.Now().UnixNano()
	milli := nano / int64(time.Millisecond)
	clock := milli<<12 | (nano-milli*int64(time.Millisecond))>>8
	for {
		last := lastIDClock.Load()
		next := max(clock, last+1)
		if lastIDClock.CompareAndSwap(last, next) {
			clock = next
			break
		}
	}
	milli, frac := clock>>12, clock&0xfff
	binary.BigEndian.PutUint16(u[0:2], uint16(milli>>32))
	binary.BigEndian.PutUint32(u[2:6], uint32(milli))
	u[6] = 0x70 | byte(frac>>8)
	u[7] = byte(frac)
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return u.String()
}

// lastIDClock is the clock of the last id made, so that ids made in the
// same instant still grow.
var lastIDClock atomic.Int64

// SessionUUID returns id in canonical form, or an EINVALID *Error.
func SessionUUID(id string) (string, error) {
	u, ok := ParseUUID(id)
	if !ok {
		return "", Errorf(EINVALID, "session id must be a UUID")
	}
	return u, nil
}

// ParseUUID accepts only the 8-4-4-4-12 hex form (either case) and returns
// it in lower case. uuid.Parse also takes {…}, urn:uuid:… and bare hex:
// each would be one more name for the same session that clients and logs
// could not match.
func ParseUUID(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return "", false
	}
	return u.String(), true
}

// PrepareExchange validates a question and its answer for storage and
// fills in what the caller may leave out: ids (new time-ordered UUIDs), times (now, the
// same for both) and sources (empty). The answer is never dated before the
// question, and the answer carries the question's id. Every problem is an EINVALID *Error, so a store can check an
// exchange before it writes anything.
func PrepareExchange(sessionID string, q, a Message, now func() time.Time) (string, [2]StoredMessage, error) {
	var rows [2]StoredMessage
	sid, err := SessionUUID(sessionID)
	if err != nil {
		return "", rows, err
	}
	var clock time.Time
	for i, m := range []Message{q, a} {
		what, want := "question", "user"
		if i == 1 {
			what, want = "answer", "assistant"
		}
		if m.Role != want {
			return "", rows, Errorf(EINVALID, "the %s's role must be %q, not %q", what, want, m.Role)
		}
		if m.SessionID != "" {
			if s, err := SessionUUID(m.SessionID); err != nil || s != sid {
				return "", rows, Errorf(EINVALID, "the %s belongs to session %q, not %s", what, m.SessionID, sid)
			}
		}
		if strings.TrimSpace(m.Content) == "" {
			return "", rows, Errorf(EINVALID, "the %s is empty", what)
		}
		if !utf8.ValidString(m.Content) || strings.ContainsRune(m.Content, 0) {
			return "", rows, Errorf(EINVALID, "the %s must be valid UTF-8 without NUL characters", what)
		}
		r := StoredMessage{Role: m.Role, Content: m.Content, WasRefusal: m.WasRefusal, CreatedAt: m.CreatedAt}
		if m.ID == "" {
			r.ID = NewID()
		} else {
			u, err := uuid.Parse(m.ID)
			if err != nil {
				return "", rows, Errorf(EINVALID, "the %s's id must be a UUID", what)
			}
			r.ID = u.String()
		}
		if m.RefusalReason != nil {
			if !slices.Contains(RefusalReasons, *m.RefusalReason) {
				return "", rows, Errorf(EINVALID, "the %s has an unknown refusal reason %q", what, *m.RefusalReason)
			}
			if !m.WasRefusal {
				return "", rows, Errorf(EINVALID, "the %s has a refusal reason but is not a refusal", what)
			}
			s := string(*m.RefusalReason)
			r.RefusalReason = &s
		}
		if i == 0 && m.WasRefusal {
			return "", rows, Errorf(EINVALID, "a question cannot be a refusal")
		}
		src := m.Sources
		if src == nil {
			src = []Source{}
		}
		b, err := json.Marshal(src)
		if err != nil {
			return "", rows, WrapError(EINVALID, fmt.Sprintf("the %s's sources cannot be encoded", what), err)
		}
		r.Sources = string(b)
		if r.CreatedAt.IsZero() {
			if clock.IsZero() {
				clock = now()
			}
			r.CreatedAt = clock
		}
		r.CreatedAt = r.CreatedAt.UTC().Truncate(time.Microsecond)
		rows[i] = r
	}
	if rows[0].ID == rows[1].ID {
		return "", rows, Errorf(EINVALID, "question and answer have the same id %s", rows[0].ID)
	}
	if q.QuestionID != "" {
		return "", rows, Errorf(EINVALID, "a question cannot answer another question")
	}
	if a.QuestionID != "" {
		if u, err := uuid.Parse(a.QuestionID); err != nil || u.String() != rows[0].ID {
			return "", rows, Errorf(EINVALID, "the answer's question id %q is not the question's id %s", a.QuestionID, rows[0].ID)
		}
	}
	qid := rows[0].ID
	rows[1].QuestionID = &qid
	if rows[1].CreatedAt.Before(rows[0].CreatedAt) {
		rows[1].CreatedAt = rows[0].CreatedAt
	}
	return sid, rows, nil
}

// DecodeSources turns stored JSON sources into a list, never nil.
func DecodeSources(s string) ([]Source, error) {
	var src []Source
	if err := json.Unmarshal([]byte(s), &src); err != nil {
		return nil, err
	}
	if src == nil {
		src = []Source{}
	}
	return src, nil
}

// ScanMessages reads back the messages of session sid a history store's
// query returned (next and rowsErr are its rows'), size of them expected:
// scan reads one row into m, with the sources as stored and the refusal
// reason (nil for an answer), which RestoreMessage finishes.
func ScanMessages(sid string, size int, next func() bool, rowsErr func() error, scan func(m *Message) (sources string, reason *string, err error)) ([]Message, error) {
	msgs := make([]Message, 0, size)
	for next() {
		m := Message{SessionID: sid}
		sources, reason, err := scan(&m)
		if err != nil {
			return nil, err
		}
		if err := RestoreMessage(&m, sources, reason); err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, rowsErr()
}

// RestoreMessage finishes a message a history store read back: its
// sources as stored (see DecodeSources) and its refusal reason (nil for
// an answer).
func RestoreMessage(m *Message, sources string, reason *string) error {
	var err error
	if m.Sources, err = DecodeSources(sources); err != nil {
		return fmt.Errorf("message %s sources: %w", m.ID, err)
	}
	if reason != nil {
		r := RefusalReason(*reason)
		m.RefusalReason = &r
	}
	return nil
}

// CheckPage checks a request for a page of a session's messages, as a
// history store receives it, and returns the session's id as stored.
func CheckPage(sessionID string, q PageQuery) (string, error) {
	sid, err := SessionUUID(sessionID)
	if err != nil {
		return "", err
	}
	return sid, q.Check()
}

// StoreError is a history store's error as it returns it: a coded
// *Error (not found, invalid) as it stands, any other wrapped with what
// failed (format and args); nil for nil.
func StoreError(err error, format string, args ...any) error {
	if err == nil || ErrorCode(err) != EINTERNAL {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}

// requestNamespace names the ids derived from client request ids.
var requestNamespace = uuid.MustParse("5f0c7a52-8c1e-4f7e-9a43-6d1b2f0e9c11")

// QuestionID derives, from a client's request id, the id of the question
// it asks in a session: a retry of the request in the same session gets
// the same id, so the store's unique message id stores its exchange once,
// and the stored exchange can be found again. The key is the session and
// the request id together, so knowing a request id alone reaches nothing:
// only the session id, which the client keeps, reads a session. space
// (the book) keeps apart the ids of books that share one store.
func QuestionID(space, sessionID, requestID string) string {
	return uuid.NewSHA1(requestNamespace, []byte("question\x00"+space+"\x00"+sessionID+"\x00"+requestID)).String()
}
