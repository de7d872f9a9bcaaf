package postgres

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// row is a validated message ready to be written.
type row struct {
	id         string
	role       string
	content    string
	sources    string // JSON array
	wasRefusal bool
	reason     *string
	createdAt  time.Time
}

// sessionUUID returns id in canonical form, or an EINVALID *rag.Error.
func sessionUUID(id string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil {
		return "", rag.Errorf(rag.EINVALID, "session id must be a UUID")
	}
	return u.String(), nil
}

// prepareExchange validates a question and its answer and fills in what the
// caller may leave out: ids (new UUIDs), times (now, the same for both) and
// sources (empty). The answer is never dated before the question. Every
// problem is an EINVALID *rag.Error.
func prepareExchange(sessionID string, q, a rag.Message, now func() time.Time) (string, [2]row, error) {
	var rows [2]row
	sid, err := sessionUUID(sessionID)
	if err != nil {
		return "", rows, err
	}
	var clock time.Time
	for i, m := range []rag.Message{q, a} {
		what, want := "question", "user"
		if i == 1 {
			what, want = "answer", "assistant"
		}
		if m.Role != want {
			return "", rows, rag.Errorf(rag.EINVALID, "the %s's role must be %q, not %q", what, want, m.Role)
		}
		if m.SessionID != "" {
			if s, err := sessionUUID(m.SessionID); err != nil || s != sid {
				return "", rows, rag.Errorf(rag.EINVALID, "the %s belongs to session %q, not %s", what, m.SessionID, sid)
			}
		}
		if strings.TrimSpace(m.Content) == "" {
			return "", rows, rag.Errorf(rag.EINVALID, "the %s is empty", what)
		}
		if !utf8.ValidString(m.Content) || strings.ContainsRune(m.Content, 0) {
			return "", rows, rag.Errorf(rag.EINVALID, "the %s must be valid UTF-8 without NUL characters", what)
		}
		r := row{role: m.Role, content: m.Content, wasRefusal: m.WasRefusal, createdAt: m.CreatedAt}
		if m.ID == "" {
			r.id = uuid.NewString()
		} else {
			u, err := uuid.Parse(m.ID)
			if err != nil {
				return "", rows, rag.Errorf(rag.EINVALID, "the %s's id must be a UUID", what)
			}
			r.id = u.String()
		}
		if m.RefusalReason != nil {
			if !slices.Contains(rag.RefusalReasons, *m.RefusalReason) {
				return "", rows, rag.Errorf(rag.EINVALID, "the %s has an unknown refusal reason %q", what, *m.RefusalReason)
			}
			if !m.WasRefusal {
				return "", rows, rag.Errorf(rag.EINVALID, "the %s has a refusal reason but is not a refusal", what)
			}
			s := string(*m.RefusalReason)
			r.reason = &s
		}
		if i == 0 && m.WasRefusal {
			return "", rows, rag.Errorf(rag.EINVALID, "a question cannot be a refusal")
		}
		src := m.Sources
		if src == nil {
			src = []rag.Source{}
		}
		b, err := json.Marshal(src)
		if err != nil {
			return "", rows, rag.WrapError(rag.EINVALID, fmt.Sprintf("the %s's sources cannot be encoded", what), err)
		}
		r.sources = string(b)
		if r.createdAt.IsZero() {
			if clock.IsZero() {
				clock = now()
			}
			r.createdAt = clock
		}
		r.createdAt = r.createdAt.UTC().Truncate(time.Microsecond)
		rows[i] = r
	}
	if rows[0].id == rows[1].id {
		return "", rows, rag.Errorf(rag.EINVALID, "question and answer have the same id %s", rows[0].id)
	}
	if rows[1].createdAt.Before(rows[0].createdAt) {
		rows[1].createdAt = rows[0].createdAt
	}
	return sid, rows, nil
}

// decodeSources turns a stored JSON array into sources, never nil.
func decodeSources(s string) ([]rag.Source, error) {
	var src []rag.Source
	if err := json.Unmarshal([]byte(s), &src); err != nil {
		return nil, err
	}
	if src == nil {
		src = []rag.Source{}
	}
	return src, nil
}
