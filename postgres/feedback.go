package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

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
	sid, err := rag.SessionUUID(sessionID)
	if err != nil {
		return rag.Feedback{}, err
	}
	u, err := uuid.Parse(messageID)
	if err != nil {
		e := rag.Errorf(rag.EINVALID, "message id must be a UUID")
		e.Details = map[string]any{"field": "id"}
		return rag.Feedback{}, e
	}
	mid := u.String()
	if err := f.Normalize(); err != nil {
		return rag.Feedback{}, err
	}
	f.MessageID = mid
	f.UpdatedAt = h.now().Truncate(time.Microsecond)
	err = h.pool.with(ctx, func(c *pgx.Conn) error {
		return pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
			var (
				owner, role string
				refusal     bool
			)
			err := tx.QueryRow(ctx, `SELECT s.client_id::text, m.role, m.was_refusal
FROM chat_messages AS m JOIN chat_sessions AS s ON s.id = m.session_id AND s.book = $2
WHERE m.id = $1`, mid, h.Book).Scan(&owner, &role, &refusal)
			if errors.Is(err, pgx.ErrNoRows) || err == nil && owner != sid {
				return rag.Errorf(rag.ENOTFOUND, "session %s has no message %s", sid, mid)
			}
			if err != nil {
				return err
			}
			if err := rag.CheckFeedbackTarget(role, refusal); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `INSERT INTO message_feedback (message_id, rating, comment, created_at, updated_at)
VALUES ($1, $2, $3, $4, $4)
ON CONFLICT (message_id) DO UPDATE SET rating = excluded.rating, comment = excluded.comment, updated_at = excluded.updated_at`,
				mid, string(f.Rating), f.Comment, f.UpdatedAt)
			return err
		})
	})
	if err != nil {
		var re *rag.Error
		if errors.As(err, &re) {
			return rag.Feedback{}, err
		}
		return rag.Feedback{}, fmt.Errorf("feedback on %s: %w", mid, err)
	}
	return f, nil
}

// ExchangePage reads one page of answers in [from, to) with their
// questions and feedback, keyed by (created_at, seq) so that each page is
// an index range scan however far into the history it starts.
func (h *History) ExchangePage(ctx context.Context, from, to time.Time, after rag.ExchangeCursor, limit int) ([]rag.Exchange, rag.ExchangeCursor, error) {
	if limit <= 0 {
		return nil, after, rag.Errorf(rag.EINVALID, "page size must be positive")
	}
	start, startSeq := from, int64(-1)
	if !after.At.IsZero() {
		start, startSeq = after.At, after.Seq
	}
	out := make([]rag.Exchange, 0, limit)
	err := h.pool.with(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT a.seq, s.client_id::text, q.content, q.created_at, a.id::text, a.content, a.created_at,
	a.sources::text, a.was_refusal, a.refusal_reason, f.rating, f.comment, f.updated_at
FROM chat_messages AS a
JOIN chat_sessions AS s ON s.id = a.session_id AND s.book = $6
JOIN chat_messages AS q ON q.id = a.question_id
LEFT JOIN message_feedback AS f ON f.message_id = a.id
WHERE a.role = 'assistant' AND (a.created_at, a.seq) > ($1, $2) AND a.created_at >= $3 AND a.created_at < $4
ORDER BY a.created_at, a.seq
LIMIT $5`, start, startSeq, from, to, limit, h.Book)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				x       rag.Exchange
				sources string
				reason  *string
				rating  *string
				comment *string
				rated   *time.Time
			)
			if err := rows.Scan(&x.Seq, &x.SessionID, &x.Question, &x.AskedAt, &x.AnswerID, &x.Answer, &x.AnsweredAt,
				&sources, &x.WasRefusal, &reason, &rating, &comment, &rated); err != nil {
				return err
			}
			x.AskedAt, x.AnsweredAt = x.AskedAt.UTC(), x.AnsweredAt.UTC()
			if x.Sources, err = rag.DecodeSources(sources); err != nil {
				return fmt.Errorf("message %s sources: %w", x.AnswerID, err)
			}
			if reason != nil {
				x.RefusalReason = rag.RefusalReason(*reason)
			}
			if rating != nil {
				f := &rag.Feedback{MessageID: x.AnswerID, Rating: rag.Rating(*rating)}
				if comment != nil {
					f.Comment = *comment
				}
				if rated != nil {
					f.UpdatedAt = rated.UTC()
				}
				x.Feedback = f
			}
			out = append(out, x)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, after, fmt.Errorf("read exchanges: %w", err)
	}
	if len(out) > 0 {
		last := out[len(out)-1]
		after = rag.ExchangeCursor{At: last.AnsweredAt, Seq: last.Seq}
	}
	return out, after, nil
}
