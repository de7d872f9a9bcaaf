package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/textbook-rag/rag"
)

// Two books served from one database stay apart under concurrent writes:
// neither finds, pages, rates, reports or prunes the other's sessions,
// and a session id of one is not found in the other.
func TestBooksApart(t *testing.T) {
	url := testURL(t)
	ctx := context.Background()
	open := func(book string) *History {
		h, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		if err := h.UseBook(ctx, book); err != nil {
			t.Fatal(err)
		}
		return h
	}
	books := map[string]*History{"robotics": open("robotics"), "biology": open("biology")}
	const sessions, exchanges = 8, 5
	owner := sync.Map{} // session id → book
	var wg sync.WaitGroup
	errs := make(chan error, 2*sessions*exchanges)
	for name, h := range books {
		for i := range sessions {
			sid := rag.NewID()
			owner.Store(sid, name)
			wg.Go(func() {
				for j := range exchanges {
					q := rag.Message{Role: "user", Content: fmt.Sprintf("%s question %d.%d", name, i, j)}
					a := rag.Message{Role: "assistant", Content: name + " answer"}
					if err := h.AppendExchange(ctx, sid, q, a); err != nil {
						errs <- err
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	crossing := 0
	owner.Range(func(k, v any) bool {
		sid, book := k.(string), v.(string)
		for name, h := range books {
			msgs, err := h.Messages(ctx, sid)
			page, perr := h.MessagesPage(ctx, sid, rag.PageQuery{Limit: 50})
			if name == book {
				if err != nil || len(msgs) != 2*exchanges || perr != nil || len(page.Messages) != 2*exchanges {
					t.Errorf("%s's own session %s: %d messages (%v), page %d (%v)", name, sid, len(msgs), err, len(page.Messages), perr)
				}
				continue
			}
			if rag.ErrorCode(err) != rag.ENOTFOUND || rag.ErrorCode(perr) != rag.ENOTFOUND {
				crossing++
				t.Errorf("%s found %s's session %s: %v / %v", name, book, sid, err, perr)
			}
		}
		return true
	})
	for name, h := range books {
		xs, _, err := h.ExchangePage(ctx, time.Time{}, time.Now().Add(time.Hour), rag.ExchangeCursor{}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(xs) != sessions*exchanges {
			t.Errorf("%s's report reads %d exchanges, want %d", name, len(xs), sessions*exchanges)
		}
		for _, x := range xs {
			if b, _ := owner.Load(x.SessionID); b != name {
				crossing++
				t.Errorf("%s's report shows %s's question %q", name, b, x.Question)
			}
			other := books["robotics"]
			if name == "robotics" {
				other = books["biology"]
			}
			if _, err := other.SetFeedback(ctx, x.SessionID, x.AnswerID, rag.Feedback{Rating: rag.Helpful}); rag.ErrorCode(err) != rag.ENOTFOUND {
				crossing++
				t.Errorf("feedback from the other book on %s's answer: %v", name, err)
			}
		}
	}
	n, err := books["biology"].DeleteSessionsBefore(ctx, time.Now().Add(time.Hour))
	if err != nil || n != sessions {
		t.Errorf("biology pruned %d sessions (%v), want its own %d", n, err, sessions)
	}
	if xs, _, _ := books["robotics"].ExchangePage(ctx, time.Time{}, time.Now().Add(time.Hour), rag.ExchangeCursor{}, 1000); len(xs) != sessions*exchanges {
		t.Errorf("biology's pruning left robotics %d exchanges, want %d", len(xs), sessions*exchanges)
	}
	// A session id of one book is free in the other, like any unused id:
	// a question there opens the other book's own session of that id and
	// leaves the first untouched (no error tells that the id is in use).
	// Robotics still has its sessions (biology pruned its own).
	owner.Range(func(k, v any) bool {
		sid, book := k.(string), v.(string)
		for name, h := range books {
			if name == book || book != "robotics" {
				continue
			}
			err := h.AppendExchange(ctx, sid, rag.Message{Role: "user", Content: "intruder"}, rag.Message{Role: "assistant", Content: "x"})
			if err != nil {
				t.Errorf("%s, asked in a session id of %s: %v", name, book, err)
			}
			if msgs, err := h.Messages(ctx, sid); err != nil || len(msgs) != 2 || msgs[0].Content != "intruder" || msgs[0].SessionID != sid {
				crossing++
				t.Errorf("%s's own session %s: %d messages (%v), want its one exchange", name, sid, len(msgs), err)
			}
			if msgs, err := books[book].Messages(ctx, sid); err != nil || len(msgs) != 2*exchanges {
				crossing++
				t.Errorf("%s's session %s after %s wrote under its id: %d messages (%v)", book, sid, name, len(msgs), err)
			}
		}
		return true
	})
	t.Logf("%d books × %d sessions × %d exchanges written concurrently: %d rows crossing", len(books), sessions, exchanges, crossing)
}

// A database written before sessions had a book keeps its history: the
// first server to key it by its book takes the sessions that had none.
func TestUseBookClaimsOldSessions(t *testing.T) {
	h := openTest(t)
	sid := rag.NewID()
	if err := h.AppendExchange(context.Background(), sid, rag.Message{Role: "user", Content: "q"}, rag.Message{Role: "assistant", Content: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := h.UseBook(context.Background(), "robotics"); err != nil {
		t.Fatal(err)
	}
	if msgs, err := h.Messages(context.Background(), sid); err != nil || len(msgs) != 2 {
		t.Errorf("the old session after UseBook: %d messages, %v", len(msgs), err)
	}
}
