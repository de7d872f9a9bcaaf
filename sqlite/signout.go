package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/textbook-rag/rag"
)

var _ rag.SignOuts = (*History)(nil)

// SignOut records a signed-out sign-in until it would have ended, and
// forgets those whose end has passed.
func (h *History) SignOut(ctx context.Context, nonce string, until time.Time) error {
	now := formatTime(h.now())
	if _, err := h.db.ExecContext(ctx, "DELETE FROM admin_signouts WHERE until <= ?", now); err != nil {
		return fmt.Errorf("sign out: %w", err)
	}
	if _, err := h.db.ExecContext(ctx, "INSERT INTO admin_signouts (nonce, until) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING",
		nonce, formatTime(until.UTC())); err != nil {
		return fmt.Errorf("sign out: %w", err)
	}
	return nil
}

// SignedOut reports whether the sign-in nonce signed out.
func (h *History) SignedOut(ctx context.Context, nonce string) (bool, error) {
	var n int
	if err := h.db.QueryRowContext(ctx, "SELECT count(*) FROM admin_signouts WHERE nonce = ?", nonce).Scan(&n); err != nil {
		return false, fmt.Errorf("signed out: %w", err)
	}
	return n > 0, nil
}
