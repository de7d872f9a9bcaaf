package historytest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// stores returns the store's feedback and exchange-reading sides; every
// history in the project keeps them.
func stores(t *testing.T, h Store) (rag.FeedbackStore, rag.ExchangeReader) {
	t.Helper()
	fs, ok := h.History.(rag.FeedbackStore)
	if !ok {
		t.Fatalf("%T does not store feedback", h.History)
	}
	xr, ok := h.History.(rag.ExchangeReader)
	if !ok {
		t.Fatalf("%T does not read exchanges in pages", h.History)
	}
	return fs, xr
}

// appendAt writes one exchange answered at at and returns the ids of its
// question and answer.
func appendAt(t *testing.T, h Store, sid, q string, a rag.Message, at time.Time) (string, string) {
	t.Helper()
	qm := rag.Message{ID: uuid.NewString(), Role: "user", Content: q, CreatedAt: at.Add(-time.Millisecond)}
	a.ID, a.Role, a.CreatedAt = uuid.NewString(), "assistant", at
	if err := h.AppendExchange(context.Background(), sid, qm, a); err != nil {
		t.Fatal(err)
	}
	return qm.ID, a.ID
}

func feedback(t *testing.T, h Store) {
	ctx := context.Background()
	fs, xr := stores(t, h)
	sid := uuid.NewString()
	_, aid := appendAt(t, h, sid, "What is a topic?", rag.Message{Content: "A named bus."}, T0)
	got, err := fs.SetFeedback(ctx, sid, strings.ToUpper(aid), rag.Feedback{Rating: rag.Helpful})
	if err != nil {
		t.Fatal(err)
	}
	want := rag.Feedback{MessageID: aid, Rating: rag.Helpful, UpdatedAt: T0.Truncate(time.Microsecond)}
	if got != want {
		t.Fatalf("first feedback:\n got %+v\nwant %+v", got, want)
	}
	// The reader changes their mind: the feedback is replaced, not added.
	got, err = fs.SetFeedback(ctx, sid, aid, rag.Feedback{Rating: rag.NotHelpful, Comment: "  No example of a subscriber.\n"})
	if err != nil {
		t.Fatal(err)
	}
	want.Rating, want.Comment = rag.NotHelpful, "No example of a subscriber."
	if got != want {
		t.Fatalf("changed feedback:\n got %+v\nwant %+v", got, want)
	}
	if n := h.Count("message_feedback"); n != 1 {
		t.Fatalf("%d feedback rows, want 1", n)
	}
	xs, _, err := xr.ExchangePage(ctx, T0.Add(-time.Hour), T0.Add(time.Hour), rag.ExchangeCursor{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 1 || xs[0].Feedback == nil || *xs[0].Feedback != want {
		t.Fatalf("exchange read back: %+v", xs)
	}
	// Deleting the session deletes the feedback with its answer.
	if p, ok := h.History.(rag.HistoryPruner); ok {
		if _, err := p.DeleteSessionsBefore(ctx, T0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if n := h.Count("message_feedback"); n != 0 {
			t.Fatalf("%d feedback rows after the session was deleted, want 0", n)
		}
	}
}

func feedbackErrors(t *testing.T, h Store) {
	ctx := context.Background()
	fs, _ := stores(t, h)
	sid := uuid.NewString()
	qid, aid := appendAt(t, h, sid, "What is a topic?", rag.Message{Content: "A named bus."}, T0)
	_, rid := appendAt(t, h, sid, "Banana bread?", rag.Message{Content: "Not in the book.", WasRefusal: true, RefusalReason: reason(rag.EmptyRetrieval)}, T0.Add(time.Second))
	ok := rag.Feedback{Rating: rag.Helpful}
	tests := []struct {
		name, session, message string
		f                      rag.Feedback
		code                   string
	}{
		{"unknown message", sid, uuid.NewString(), ok, rag.ENOTFOUND},
		{"another session's message", uuid.NewString(), aid, ok, rag.ENOTFOUND},
		{"a question", sid, qid, ok, rag.ENOFEEDBACK},
		{"a refusal", sid, rid, ok, rag.ENOFEEDBACK},
		{"bad rating", sid, aid, rag.Feedback{Rating: "meh"}, rag.EINVALID},
		{"no rating", sid, aid, rag.Feedback{}, rag.EINVALID},
		{"comment too long", sid, aid, rag.Feedback{Rating: rag.NotHelpful, Comment: strings.Repeat("é", rag.MaxFeedbackCommentChars+1)}, rag.EINVALID},
		{"control character", sid, aid, rag.Feedback{Rating: rag.NotHelpful, Comment: "a\x07b"}, rag.EINVALID},
		{"invalid UTF-8", sid, aid, rag.Feedback{Rating: rag.NotHelpful, Comment: "a\xffb"}, rag.EINVALID},
		{"message id not a uuid", sid, "42", ok, rag.EINVALID},
		{"session id not a uuid", "x", aid, ok, rag.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fs.SetFeedback(ctx, tt.session, tt.message, tt.f)
			if got := rag.ErrorCode(err); got != tt.code {
				t.Fatalf("code %q (%v), want %q", got, err, tt.code)
			}
		})
	}
	if n := h.Count("message_feedback"); n != 0 {
		t.Fatalf("%d feedback rows after rejected feedback, want 0", n)
	}
	// A comment of exactly the limit is fine.
	if _, err := fs.SetFeedback(ctx, sid, aid, rag.Feedback{Rating: rag.NotHelpful, Comment: strings.Repeat("é", rag.MaxFeedbackCommentChars)}); err != nil {
		t.Fatal(err)
	}
}

// exchangePages reads a history in pages of every size from 1 up: each
// exchange in the range comes back once, in answer-time order, with ties
// (equal times) kept apart by insertion order; the range is [from, to).
func exchangePages(t *testing.T, h Store) {
	ctx := context.Background()
	_, xr := stores(t, h)
	day := 24 * time.Hour
	base := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	type seeded struct {
		question string
		at       time.Time
		refusal  bool
	}
	seeds := []seeded{
		{"before the range", base.Add(-time.Microsecond), false},
		{"first", base, false},
		{"tie one", base.Add(day), false},
		{"tie two", base.Add(day), true},
		{"tie three", base.Add(day), false},
		{"later", base.Add(day + time.Hour), true},
		{"last in range", base.Add(3*day - time.Microsecond), false},
		{"at the end", base.Add(3 * day), false},
	}
	sources := []rag.Source{{ChunkID: "c1", ModuleID: "m", ChapterID: "m/ch", SectionHeading: "Topics", Anchor: "topics", Score: 0.9, Path: "m/ch"}}
	for _, s := range seeds {
		sid := uuid.NewString()
		a := rag.Message{Content: "answer " + s.question, Sources: sources}
		if s.refusal {
			a = rag.Message{Content: "refused", WasRefusal: true, RefusalReason: reason(rag.OutOfScope)}
		}
		appendAt(t, h, sid, s.question, a, s.at)
	}
	want := []string{"first", "tie one", "tie two", "tie three", "later", "last in range"}
	for size := 1; size <= len(want)+1; size++ {
		var (
			got    []string
			cursor rag.ExchangeCursor
		)
		for page := 0; ; page++ {
			if page > len(want)+1 {
				t.Fatalf("page size %d: paging does not end", size)
			}
			xs, next, err := xr.ExchangePage(ctx, base, base.Add(3*day), cursor, size)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range xs {
				got = append(got, x.Question)
				if x.WasRefusal != (x.RefusalReason != "") {
					t.Errorf("%q: was_refusal %v, reason %q", x.Question, x.WasRefusal, x.RefusalReason)
				}
				if !x.WasRefusal && (len(x.Sources) != 1 || x.Sources[0] != sources[0]) {
					t.Errorf("%q: sources %+v", x.Question, x.Sources)
				}
				if x.SessionID == "" || x.AnswerID == "" || x.AskedAt.After(x.AnsweredAt) {
					t.Errorf("%q: incomplete exchange %+v", x.Question, x)
				}
			}
			cursor = next
			if len(xs) < size {
				break
			}
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("page size %d:\n got %q\nwant %q", size, got, want)
		}
	}
	if _, _, err := xr.ExchangePage(ctx, base, base.Add(day), rag.ExchangeCursor{}, 0); rag.ErrorCode(err) != rag.EINVALID {
		t.Errorf("page size 0: %v, want %s", err, rag.EINVALID)
	}
}
