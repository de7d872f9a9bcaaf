package historytest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// messagePages reads a session in pages of every size, backwards from the
// latest page and forwards from its first message: the pages join up to
// exactly what Messages lists, and Older and Newer say where more lie.
func messagePages(t *testing.T, h Store) {
	ctx := context.Background()
	sid := uuid.NewString()
	for i := range 5 {
		appendOK(t, h, sid, question(fmt.Sprint("q", i)), answer(fmt.Sprint("a", i)))
	}
	// Dated before the others, written last: listed last.
	q := rag.Message{Role: "user", Content: "early q", CreatedAt: T0.Add(-time.Minute)}
	a := rag.Message{Role: "assistant", Content: "early a", CreatedAt: T0.Add(-time.Minute)}
	appendOK(t, h, sid, q, a)
	// Another session's messages never show.
	appendOK(t, h, uuid.NewString(), question("other q"), answer("other a"))
	all := messagesOK(t, h, sid)
	if len(all) != 12 {
		t.Fatalf("Messages: %d messages, want 12", len(all))
	}
	for size := 1; size <= len(all)+1; size++ {
		// Backwards from the latest page.
		var got []rag.Message
		query := rag.PageQuery{Limit: size}
		for page := 0; ; page++ {
			if page > len(all) {
				t.Fatalf("size %d: paging backwards does not end", size)
			}
			p, err := h.MessagesPage(ctx, sid, query)
			if err != nil {
				t.Fatalf("size %d, %+v: %v", size, query, err)
			}
			if want := min(size, len(all)-len(got)); len(p.Messages) != want {
				t.Fatalf("size %d, page %d: %d messages, want %d", size, page, len(p.Messages), want)
			}
			got = append(append([]rag.Message{}, p.Messages...), got...)
			if p.Older != (len(got) < len(all)) || p.Newer != (page > 0) {
				t.Errorf("size %d, page %d: older %v, newer %v", size, page, p.Older, p.Newer)
			}
			if !p.Older {
				break
			}
			query = rag.PageQuery{Limit: size, Before: p.Messages[0].ID}
		}
		if !reflect.DeepEqual(got, all) {
			t.Errorf("size %d backwards:\n got %v\nwant %v", size, contents(got), contents(all))
		}
		// Forwards from the first message.
		got = all[:1]
		query = rag.PageQuery{Limit: size, After: all[0].ID}
		for page := 0; ; page++ {
			if page > len(all) {
				t.Fatalf("size %d: paging forwards does not end", size)
			}
			p, err := h.MessagesPage(ctx, sid, query)
			if err != nil {
				t.Fatalf("size %d, %+v: %v", size, query, err)
			}
			got = append(got, p.Messages...)
			if p.Newer != (len(got) < len(all)) || !p.Older {
				t.Errorf("size %d, forward page %d: older %v, newer %v", size, page, p.Older, p.Newer)
			}
			if !p.Newer {
				break
			}
			query = rag.PageQuery{Limit: size, After: p.Messages[len(p.Messages)-1].ID}
		}
		if !reflect.DeepEqual(got, all) {
			t.Errorf("size %d forwards:\n got %v\nwant %v", size, contents(got), contents(all))
		}
	}
	// The cursor's case does not matter; the last message has nothing after it.
	p, err := h.MessagesPage(ctx, sid, rag.PageQuery{Limit: 3, After: strings.ToUpper(all[len(all)-1].ID)})
	if err != nil || len(p.Messages) != 0 || p.Newer || !p.Older {
		t.Errorf("after the last message: %+v, %v", p, err)
	}
}

// messagePageErrors: an unknown session is ENOTFOUND; a bad query is
// EINVALID naming the parameter, and a cursor must be a message of the
// session read.
func messagePageErrors(t *testing.T, h Store) {
	ctx := context.Background()
	sid, other := uuid.NewString(), uuid.NewString()
	qid := uuid.NewString()
	q := rag.Message{ID: qid, Role: "user", Content: "q"}
	appendOK(t, h, sid, q, answer("a"))
	oq := rag.Message{ID: uuid.NewString(), Role: "user", Content: "other q"}
	appendOK(t, h, other, oq, answer("other a"))
	tests := []struct {
		name, sid   string
		q           rag.PageQuery
		code, field string
	}{
		{"unknown session", uuid.NewString(), rag.PageQuery{Limit: 10}, rag.ENOTFOUND, ""},
		{"bad session", "{" + sid + "}", rag.PageQuery{Limit: 10}, rag.EINVALID, ""},
		{"limit 0", sid, rag.PageQuery{}, rag.EINVALID, "limit"},
		{"limit over max", sid, rag.PageQuery{Limit: rag.MaxMessagesPage + 1}, rag.EINVALID, "limit"},
		{"both cursors", sid, rag.PageQuery{Limit: 10, Before: qid, After: qid}, rag.EINVALID, "before"},
		{"cursor not a uuid", sid, rag.PageQuery{Limit: 10, After: "x"}, rag.EINVALID, "after"},
		{"unknown cursor", sid, rag.PageQuery{Limit: 10, Before: uuid.NewString()}, rag.EINVALID, "before"},
		{"another session's message", sid, rag.PageQuery{Limit: 10, After: oq.ID}, rag.EINVALID, "after"},
		{"unknown session with a cursor", uuid.NewString(), rag.PageQuery{Limit: 10, Before: qid}, rag.ENOTFOUND, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := h.MessagesPage(ctx, tt.sid, tt.q)
			if rag.ErrorCode(err) != tt.code || p.Messages != nil {
				t.Fatalf("MessagesPage(%q, %+v) = %+v, %v; want code %s", tt.sid, tt.q, p, err, tt.code)
			}
			if tt.field == "" {
				return
			}
			var e *rag.Error
			if !errors.As(err, &e) || e.Details["field"] != tt.field {
				t.Errorf("error %v does not name field %q", err, tt.field)
			}
		})
	}
}

func contents(msgs []rag.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content
	}
	return out
}
