package rag

import (
	"context"
	"time"
)

// SignOuts keeps the course report's sign-ins that signed out, each until
// it would have ended anyway: a copy of a signed-out cookie then stays
// dead after a restart, and on every replica that shares the store.
type SignOuts interface {
	// SignOut records the sign-in nonce as signed out until until.
	SignOut(ctx context.Context, nonce string, until time.Time) error
	// SignedOut reports whether the sign-in nonce signed out.
	SignedOut(ctx context.Context, nonce string) (bool, error)
}
