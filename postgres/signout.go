package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/textbook-rag/rag"
)

var _ rag.SignOuts = (*History)(nil)

// SignOut records a signed-out sign-in until it would have ended, and
// forgets those whose end has passed.
func (h *History) SignOut(ctx context.Context, nonce string, until time.Time) error {
	err := h.pool.with(ctx, func(c *pgx.Conn) error {
		if _, err := c.Exec(ctx, "DELETE FROM admin_signouts WHERE until <= $1", h.now()); err != nil {
			return err
		}
		_, err := c.Exec(ctx, "INSERT INTO admin_signouts (nonce, until) VALUES ($1, $2) ON CONFLICT (nonce) DO NOTHING", nonce, until)
		return err
	})
	if err != nil {
		return fmt.Errorf("sign out: %w", err)
	}
	return nil
}

// SignedOut reports whether the sign-in nonce signed out.
func (h *History) SignedOut(ctx context.Context, nonce string) (bool, error) {
	var out bool
	err := h.pool.with(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM admin_signouts WHERE nonce = $1)", nonce).Scan(&out)
	})
	if err != nil {
		return false, fmt.Errorf("signed out: %w", err)
	}
	return out, nil
}
