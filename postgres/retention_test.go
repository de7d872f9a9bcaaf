package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// Retention deletes the sessions idle since the cutoff, messages and all,
// and keeps every other session whole, old messages included.
func TestDeleteSessionsBefore(t *testing.T) {
	ctx := context.Background()
	h := openTest(t)
	day := 24 * time.Hour
	at := func(text string, ago time.Duration, role string) rag.Message {
		return rag.Message{Role: role, Content: text, CreatedAt: t0.Add(-ago)}
	}
	sessions := map[string][]time.Duration{ // exchanges, by age
		"old":    {200 * day, 100 * day},
		"mixed":  {120 * day, 1 * day},
		"recent": {2 * day},
	}
	ids := map[string]string{}
	for name, ages := range sessions {
		ids[name] = uuid.NewString()
		for _, ago := range ages {
			if err := h.AppendExchange(ctx, ids[name], at("q", ago, "user"), at("a", ago, "assistant")); err != nil {
				t.Fatal(err)
			}
		}
	}
	n, err := h.DeleteSessionsBefore(ctx, t0.Add(-90*day))
	if err != nil || n != 1 {
		t.Fatalf("DeleteSessionsBefore = %d, %v; want 1 session", n, err)
	}
	if _, err := h.Messages(ctx, ids["old"]); rag.ErrorCode(err) != rag.ENOTFOUND {
		t.Errorf("the old session: %v, want not_found", err)
	}
	for name, want := range map[string]int{"mixed": 4, "recent": 2} {
		msgs, err := h.Messages(ctx, ids[name])
		if err != nil || len(msgs) != want {
			t.Errorf("%s session: %d messages, %v; want %d", name, len(msgs), err, want)
		}
	}
	if got := count(t, h, "SELECT count(*) FROM chat_messages"); got != 6 {
		t.Errorf("%d messages left, want 6", got)
	}
	if n, err := h.DeleteSessionsBefore(ctx, t0.Add(-90*day)); err != nil || n != 0 {
		t.Errorf("second prune = %d, %v; want 0", n, err)
	}
}
