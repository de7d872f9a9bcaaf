package historytest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// sessionCap: with a cap of n messages a session takes exchanges up to n
// and refuses the next with ESESSIONFULL, writing nothing; concurrent
// writers of one session never take it past the cap; CheckSessionRoom
// says beforehand whether the next exchange fits; 0 is no cap.
func sessionCap(t *testing.T, h Store) {
	ctx := context.Background()
	const max = 6
	h.SetMaxSessionMessages(max)
	sid, other := uuid.NewString(), uuid.NewString()
	if err := h.CheckSessionRoom(ctx, sid); err != nil {
		t.Errorf("a new session has no room: %v", err)
	}
	for i := range max / 2 {
		if err := h.CheckSessionRoom(ctx, sid); err != nil {
			t.Fatalf("before exchange %d: %v", i, err)
		}
		if err := h.AppendExchange(ctx, sid, question(fmt.Sprint("q", i)), answer("a")); err != nil {
			t.Fatalf("exchange %d: %v", i, err)
		}
	}
	if err := h.CheckSessionRoom(ctx, sid); rag.ErrorCode(err) != rag.ESESSIONFULL {
		t.Errorf("CheckSessionRoom of a full session = %v, want %s", err, rag.ESESSIONFULL)
	}
	err := h.AppendExchange(ctx, sid, question("one too many"), answer("a"))
	if rag.ErrorCode(err) != rag.ESESSIONFULL {
		t.Fatalf("exchange past the cap = %v, want %s", err, rag.ESESSIONFULL)
	}
	var e *rag.Error
	if errors.As(err, &e); e == nil || e.Details["max_messages"] != max {
		t.Errorf("error %v does not give the cap", err)
	}
	if msgs, err := h.Messages(ctx, sid); err != nil || len(msgs) != max {
		t.Errorf("full session holds %d messages (%v), want %d", len(msgs), err, max)
	}
	if err := h.AppendExchange(ctx, other, question("q"), answer("a")); err != nil {
		t.Errorf("another session: %v", err)
	}

	// Concurrent writers: exactly max/2 exchanges get in.
	race := uuid.NewString()
	const writers = 16
	var (
		wg          sync.WaitGroup
		mu          sync.Mutex
		ok, refused int
	)
	for i := range writers {
		wg.Go(func() {
			err := h.AppendExchange(ctx, race, question(fmt.Sprint("q", i)), answer(fmt.Sprint("a", i)))
			mu.Lock()
			defer mu.Unlock()
			switch rag.ErrorCode(err) {
			case "":
				ok++
			case rag.ESESSIONFULL:
				refused++
			default:
				t.Errorf("writer %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if ok != max/2 || refused != writers-max/2 {
		t.Errorf("concurrent writers: %d written, %d refused; want %d and %d", ok, refused, max/2, writers-max/2)
	}
	msgs, err := h.Messages(ctx, race)
	if err != nil || len(msgs) != max {
		t.Errorf("raced session holds %d messages (%v), want %d", len(msgs), err, max)
	}
	CheckLinks(t, msgs, max/2)

	h.SetMaxSessionMessages(0)
	if err := h.CheckSessionRoom(ctx, sid); err != nil {
		t.Errorf("no cap: CheckSessionRoom = %v", err)
	}
	if err := h.AppendExchange(ctx, sid, question("no cap"), answer("a")); err != nil {
		t.Errorf("no cap: %v", err)
	}
}
