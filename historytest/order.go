package historytest

import (
	"context"
	"reflect"
	"testing"

	"github.com/textbook-rag/rag"
)

// CheckOrder checks that the session lists exactly want, in that order,
// both whole and page by page (forwards and backwards, two at a time).
func CheckOrder(t *testing.T, h rag.History, sid string, want ...string) {
	t.Helper()
	ctx := context.Background()
	msgs := messagesOK(t, h, sid)
	if got := contents(msgs); !reflect.DeepEqual(got, want) {
		t.Fatalf("session %s lists %q, want %q", sid, got, want)
	}
	var forward, backward []rag.Message
	q := rag.PageQuery{Limit: 2}
	for {
		p, err := h.MessagesPage(ctx, sid, q)
		if err != nil {
			t.Fatal(err)
		}
		backward = append(append([]rag.Message{}, p.Messages...), backward...)
		if !p.Older {
			break
		}
		q = rag.PageQuery{Limit: 2, Before: p.Messages[0].ID}
	}
	forward = msgs[:1]
	q = rag.PageQuery{Limit: 2, After: msgs[0].ID}
	for {
		p, err := h.MessagesPage(ctx, sid, q)
		if err != nil {
			t.Fatal(err)
		}
		forward = append(forward, p.Messages...)
		if !p.Newer {
			break
		}
		q = rag.PageQuery{Limit: 2, After: p.Messages[len(p.Messages)-1].ID}
	}
	for name, got := range map[string][]rag.Message{"forwards": forward, "backwards": backward} {
		if c := contents(got); !reflect.DeepEqual(c, want) {
			t.Errorf("session %s paged %s lists %q, want %q", sid, name, c, want)
		}
	}
}
