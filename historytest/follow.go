package historytest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// FollowWriters is the number of writers followForward runs at once.
const FollowWriters = 8

// followForward: a reader that follows a session page by page (After the
// last message it saw) while FollowWriters writers append to it sees
// every message exactly once, in the order the session finally lists.
// The writers date their messages as the server does, the question when
// it arrived and the answer when it was ready, so exchanges are committed
// in another order than their dates say.
func followForward(t *testing.T, h Store) {
	ctx := context.Background()
	const each, limit = 40, 7
	sid := uuid.NewString()
	appendOK(t, h, sid, question("q start"), answer("a start"))
	first, err := h.MessagesPage(ctx, sid, rag.PageQuery{Limit: 2})
	if err != nil || len(first.Messages) != 2 {
		t.Fatalf("first page: %+v, %v", first, err)
	}

	var (
		wg   sync.WaitGroup
		done atomic.Bool
	)
	for w := range FollowWriters {
		wg.Go(func() {
			for i := range each {
				q := question(fmt.Sprintf("q %d %d", w, i))
				q.CreatedAt = time.Now()
				// Answering takes a while; exchanges asked later may
				// be ready first.
				time.Sleep(time.Duration(rand.IntN(1500)) * time.Microsecond)
				a := answer(fmt.Sprintf("a %d %d", w, i))
				a.CreatedAt = time.Now()
				if err := h.AppendExchange(ctx, sid, q, a); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	go func() {
		wg.Wait()
		done.Store(true)
	}()

	seen := first.Messages
	cursor := seen[len(seen)-1].ID
	for {
		// Once the writers are done, a page that says nothing is newer
		// is the end.
		finished := done.Load()
		p, err := h.MessagesPage(ctx, sid, rag.PageQuery{Limit: limit, After: cursor})
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, p.Messages...)
		if n := len(p.Messages); n > 0 {
			cursor = p.Messages[n-1].ID
		} else {
			time.Sleep(200 * time.Microsecond)
		}
		if finished && !p.Newer {
			break
		}
	}

	all := messagesOK(t, h, sid)
	if want := 2 + 2*FollowWriters*each; len(all) != want {
		t.Fatalf("the session holds %d messages, want %d", len(all), want)
	}
	times := map[string]int{}
	for _, m := range seen {
		times[m.ID]++
	}
	missed, repeated := 0, 0
	for _, m := range all {
		if times[m.ID] == 0 {
			missed++
		}
	}
	for _, n := range times {
		repeated += n - 1
	}
	t.Logf("%d writers, %d messages: the follower missed %d and repeated %d", FollowWriters, len(all), missed, repeated)
	if missed > 0 || repeated > 0 {
		t.Fatalf("following the session forward missed %d of %d messages and repeated %d", missed, len(all), repeated)
	}
	for i := range all {
		if seen[i].ID != all[i].ID {
			t.Fatalf("message %d: the follower saw %q, the session lists %q", i, seen[i].Content, all[i].Content)
		}
	}
	CheckLinks(t, all, 1+FollowWriters*each)
}
