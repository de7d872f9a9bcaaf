package postgres

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/internal/stallproxy"
)

// A Postgres that stops answering (here: a proxy that holds every byte)
// costs an exchange its deadline, not more, and leaves nothing written.
func TestAppendExchangeDeadlineWhenStalled(t *testing.T) {
	ctx := context.Background()
	direct := testURL(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := stallproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	u.Host = proxy.Addr()
	h, err := Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	check, err := Open(ctx, direct)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()

	proxy.Stall()
	stalled := uuid.NewString()
	dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	err = h.AppendExchange(dctx, stalled, question("q"), answer("a"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AppendExchange to a stalled server = %v, want the deadline", err)
	}
	proxy.Resume()

	if _, err := check.Messages(ctx, stalled); rag.ErrorCode(err) != rag.ENOTFOUND {
		t.Errorf("the stalled exchange's session: %v, want not_found", err)
	}
	// The pool recovers once the server answers again.
	if err := h.AppendExchange(ctx, uuid.NewString(), question("q2"), answer("a2")); err != nil {
		t.Errorf("after the stall: %v", err)
	}
}
