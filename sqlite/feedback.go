package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

var (
	_ rag.FeedbackStore  = (*History)(nil)
	_ rag.ExchangeReader = (*History)(nil)
)

// SetFeedback stores the reader's feedback on an answer of their session,
// replacing an earlier one, in one transaction with the check that the
// message is an answer of that session.
func (h *History) SetFeedback(ctx context.Context, sessionID, messageID string, f rag.Feedback) (rag.Feedback, error) {
	f, err := h.setFeedback(ctx, sessionID, messageID, f)
	return f, h.noSpace(err)
}

func (h *History) setFeedback(ctx context.Context, sessionID, messageID string, f rag.Feedback) (rag.Feedback, error) {
	sid, mid, err := feedbackIDs(sessionID, messageID)
	if err != nil {
		return rag.Feedback{}, err
	}
	if err := f.Normalize(); err != nil {
		return rag.Feedback{}, err
	}
	f.MessageID = mid
	f.UpdatedAt = h.now().Truncate(time.Microsecond)
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return rag.Feedback{}, fmt.Errorf("feedback on %s: %w", mid, err)
	}
	defer tx.Rollback()
	var (
		owner, role string
		refusal     bool
	)
	err = tx.QueryRowContext(ctx, "SELECT session_id, role, was_refusal FROM chat_messages WHERE id = ?", mid).Scan(&owner, &role, &refusal)
	if errors.Is(err, sql.ErrNoRows) || err == nil && owner != sid {
		return rag.Feedback{}, rag.Errorf(rag.ENOTFOUND, "session %s has no message %s", sid, mid)
	}
	if err != nil {
		return rag.Feedback{}, fmt.Errorf("feedback on %s: %w", mid, err)
	}
	if err := rag.CheckFeedbackTarget(role, refusal); err != nil {
		return rag.Feedback{}, err
	}
	at := formatTime(f.UpdatedAt)
	if _, err := tx.ExecContext(ctx, `INSERT INTO message_feedback (message_id, rating, comment, created_at, updated_at)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (message_id) DO UPDATE SET rating = excluded.rating, comment = excluded.comment, updated_at = excluded.updated_at`,
		mid, string(f.Rating), f.Comment, at, at); err != nil {
		return rag.Feedback{}, fmt.Errorf("feedback on %s: %w", mid, err)
	}
	if err := tx.Commit(); err != nil {
		return rag.Feedback{}, fmt.Errorf("feedback on %s: %w", mid, err)
	}
	return f, nil
}

// feedbackIDs parses the session and message ids into canonical form.
func feedbackIDs(sessionID, messageID string) (string, string, error) {
	sid, err := rag.SessionUUID(sessionID)
	if err != nil {
		return "", "", err
	}
	u, err := uuid.Parse(messageID)
	if err != nil {
		e := rag.Errorf(rag.EINVALID, "message id must be a UUID")
		e.Details = map[string]any{"field": "id"}
		return "", "", e
	}
	return sid, u.String(), nil
}

// ExchangePage reads one page of answers in [from, to) with their
// questions and feedback, keyed by (created_at, seq) so that each page is
// an index range scan however far into the history it starts.
func (h *History) ExchangePage(ctx context.Context, from, to time.Time, after rag.ExchangeCursor, limit int) ([]rag.Exchange, rag.ExchangeCursor, error) {
	return exchangePage(ctx, h.db, from, to, after, limit)
}

func exchangePage(ctx context.Context, db *sql.DB, from, to time.Time, after rag.ExchangeCursor, limit int) ([]rag.Exchange, rag.ExchangeCursor, error) {
	if limit <= 0 {
		return nil, after, rag.Errorf(rag.EINVALID, "page size must be positive")
	}
	start, startSeq := formatTime(from), int64(-1)
	if !after.At.IsZero() {
		start, startSeq = formatTime(after.At), after.Seq
	}
	rows, err := db.QueryContext(ctx, `SELECT a.seq, a.session_id, q.content, q.created_at, a.id, a.content, a.created_at,
	a.sources, a.was_refusal, a.refusal_reason, f.rating, f.comment, f.updated_at
FROM chat_messages AS a
JOIN chat_messages AS q ON q.id = a.question_id
LEFT JOIN message_feedback AS f ON f.message_id = a.id
WHERE a.role = 'assistant' AND (a.created_at, a.seq) > (?, ?) AND a.created_at >= ? AND a.created_at < ?
ORDER BY a.created_at, a.seq
LIMIT ?`, start, startSeq, formatTime(from), formatTime(to), limit)
	if err != nil {
		return nil, after, fmt.Errorf("read exchanges: %w", err)
	}
	defer rows.Close()
	out := make([]rag.Exchange, 0, limit)
	for rows.Next() {
		var (
			x                      rag.Exchange
			asked, answered        string
			sources                string
			reason                 sql.NullString
			rating, comment, rated sql.NullString
		)
		if err := rows.Scan(&x.Seq, &x.SessionID, &x.Question, &asked, &x.AnswerID, &x.Answer, &answered,
			&sources, &x.WasRefusal, &reason, &rating, &comment, &rated); err != nil {
			return nil, after, fmt.Errorf("read exchanges: %w", err)
		}
		if x.AskedAt, err = time.Parse(time.RFC3339Nano, asked); err != nil {
			return nil, after, fmt.Errorf("read exchanges: message %s: %w", x.AnswerID, err)
		}
		if x.AnsweredAt, err = time.Parse(time.RFC3339Nano, answered); err != nil {
			return nil, after, fmt.Errorf("read exchanges: message %s: %w", x.AnswerID, err)
		}
		if x.Sources, err = rag.DecodeSources(sources); err != nil {
			return nil, after, fmt.Errorf("read exchanges: message %s sources: %w", x.AnswerID, err)
		}
		x.RefusalReason = rag.RefusalReason(reason.String)
		if rating.Valid {
			f := &rag.Feedback{MessageID: x.AnswerID, Rating: rag.Rating(rating.String), Comment: comment.String}
			if f.UpdatedAt, err = time.Parse(time.RFC3339Nano, rated.String); err != nil {
				return nil, after, fmt.Errorf("read exchanges: feedback on %s: %w", x.AnswerID, err)
			}
			x.Feedback = f
		}
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		return nil, after, fmt.Errorf("read exchanges: %w", err)
	}
	if len(out) > 0 {
		last := out[len(out)-1]
		after = rag.ExchangeCursor{At: last.AnsweredAt, Seq: last.Seq}
	}
	return out, after, nil
}
