// Package historytest is the contract every rag.History keeps, as one
// suite that each store's tests run against a fresh store of their kind:
// what is stored comes back whole and in order, bad input writes nothing,
// an exchange is written whole or not at all, concurrent writers do not
// interleave.
package historytest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// T0 is the time of the stores' clock in the suite.
var T0 = time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)

// Store is a fresh, empty history whose clock says T0, a way to count the
// rows of its tables (chat_sessions, chat_messages) and to set its cap on
// a session's length.
type Store struct {
	rag.History
	Count func(table string) int
	// SetMaxSessionMessages sets the store's cap on a session's length
	// (0: none).
	SetMaxSessionMessages func(n int)
}

// Run runs the contract as subtests, each on a store of its own from open
// (which skips the test when the store's backend is not available).
func Run(t *testing.T, open func(t *testing.T) Store) {
	tests := []struct {
		name string
		test func(t *testing.T, s Store)
	}{
		{"ExchangeRoundTrip", exchangeRoundTrip},
		{"MessagesErrors", messagesErrors},
		{"Ordering", ordering},
		{"AppendExchangeInvalid", appendExchangeInvalid},
		{"AppendExchangeAtomic", appendExchangeAtomic},
		{"ConcurrentAppend", concurrentAppend},
		{"ConcurrentExchangesLinked", concurrentExchangesLinked},
		{"DeleteSessionsBefore", deleteSessionsBefore},
		{"Feedback", feedback},
		{"FeedbackErrors", feedbackErrors},
		{"ExchangePages", exchangePages},
		{"MessagePages", messagePages},
		{"MessagePageErrors", messagePageErrors},
		{"FollowForward", followForward},
		{"SessionCap", sessionCap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.test(t, open(t))
		})
	}
}

func reason(r rag.RefusalReason) *rag.RefusalReason { return &r }

func question(text string) rag.Message { return rag.Message{Role: "user", Content: text} }

func answer(text string) rag.Message { return rag.Message{Role: "assistant", Content: text} }

func exchangeRoundTrip(t *testing.T, h Store) {
	sid := uuid.NewString()
	sources := []rag.Source{
		{ChunkID: "m1-c2-0", ModuleID: "module-1", ChapterID: "chapter-2", SectionHeading: "Topics", Anchor: "topics", Score: 0.875},
		{ChunkID: "m1-c2-1", ModuleID: "module-1", ChapterID: "chapter-2", SectionHeading: "Nodes & \"QoS\"", Anchor: "nodes", Score: 0.5},
	}
	q := rag.Message{ID: uuid.NewString(), SessionID: sid, Role: "user", Content: "What is a topic?", CreatedAt: T0.Add(-time.Second)}
	a := rag.Message{ID: uuid.NewString(), SessionID: sid, Role: "assistant", Content: "A named bus.", Sources: sources, CreatedAt: T0}
	appendOK(t, h, sid, q, a)
	// A refusal, times and ids from the history.
	rq := question("What is the weather?")
	ra := rag.Message{Role: "assistant", Content: "Out of scope.", WasRefusal: true, RefusalReason: reason(rag.OutOfScope)}
	appendOK(t, h, sid, rq, ra)
	got := messagesOK(t, h, sid)
	if len(got) != 4 {
		t.Fatalf("got %d messages, want 4", len(got))
	}
	want := []rag.Message{
		{ID: q.ID, SessionID: sid, Role: "user", Content: q.Content, Sources: []rag.Source{}, CreatedAt: q.CreatedAt},
		{ID: a.ID, SessionID: sid, Role: "assistant", Content: a.Content, Sources: sources, QuestionID: q.ID, CreatedAt: a.CreatedAt},
		{ID: got[2].ID, SessionID: sid, Role: "user", Content: rq.Content, Sources: []rag.Source{}, CreatedAt: T0},
		{ID: got[3].ID, SessionID: sid, Role: "assistant", Content: ra.Content, Sources: []rag.Source{}, WasRefusal: true, RefusalReason: reason(rag.OutOfScope), QuestionID: got[2].ID, CreatedAt: T0},
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("message %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
		if got[i].Sources == nil {
			t.Errorf("message %d: nil sources", i)
		}
	}
	for _, m := range got[2:] {
		if _, err := uuid.Parse(m.ID); err != nil {
			t.Errorf("generated id %q: %v", m.ID, err)
		}
	}
	if got[2].ID == got[3].ID {
		t.Errorf("generated ids are equal")
	}
	if got[0].RefusalReason != nil || got[1].RefusalReason != nil {
		t.Errorf("refusal reason of a non-refusal is not nil")
	}
}

func messagesErrors(t *testing.T, h Store) {
	tests := []struct {
		name, id, code string
	}{
		{"unknown session", uuid.NewString(), rag.ENOTFOUND},
		{"not a uuid", "abc", rag.EINVALID},
		{"empty", "", rag.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, err := h.Messages(context.Background(), tt.id)
			if rag.ErrorCode(err) != tt.code || msgs != nil {
				t.Errorf("Messages(%q) = %v, %v; want code %s", tt.id, msgs, err, tt.code)
			}
			if tt.code == rag.ENOTFOUND && rag.ErrorMessage(err) != fmt.Sprintf("session %s not found", tt.id) {
				t.Errorf("message %q", rag.ErrorMessage(err))
			}
		})
	}
}

// ordering: a session lists its messages in the order they were written,
// each exchange question then answer, whatever their dates say: a
// reader paging forward must never find a message placed behind its
// cursor.
func ordering(t *testing.T, h Store) {
	sid := uuid.NewString()
	// Equal timestamps: insertion order.
	for i := range 3 {
		appendOK(t, h, sid, question(fmt.Sprint("q", i)), answer(fmt.Sprint("a", i)))
	}
	// An answer dated before its question comes after it, at its time.
	q := rag.Message{Role: "user", Content: "q3", CreatedAt: T0.Add(2 * time.Second)}
	a := rag.Message{Role: "assistant", Content: "a3", CreatedAt: T0.Add(time.Second)}
	appendOK(t, h, sid, q, a)
	// An exchange dated earlier than the others, written last, is listed
	// last, with its own date.
	q = rag.Message{Role: "user", Content: "early q", CreatedAt: T0.Add(-time.Minute)}
	a = rag.Message{Role: "assistant", Content: "early a", CreatedAt: T0.Add(-time.Minute)}
	appendOK(t, h, sid, q, a)
	msgs := messagesOK(t, h, sid)
	var got []string
	for _, m := range msgs {
		got = append(got, m.Content)
	}
	want := []string{"q0", "a0", "q1", "a1", "q2", "a2", "q3", "a3", "early q", "early a"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order = %q\nwant %q", got, want)
	}
	if a3 := msgs[7]; !a3.CreatedAt.Equal(T0.Add(2 * time.Second)) {
		t.Errorf("early-dated answer has created_at %v, want its question's %v", a3.CreatedAt, T0.Add(2*time.Second))
	}
	if early := msgs[8]; !early.CreatedAt.Equal(T0.Add(-time.Minute)) {
		t.Errorf("the exchange dated earlier has created_at %v, want %v", early.CreatedAt, T0.Add(-time.Minute))
	}
}

func appendExchangeInvalid(t *testing.T, h Store) {
	id := uuid.NewString()
	tests := []struct {
		name    string
		session string
		q, a    rag.Message
	}{
		{"session not a uuid", "session-1", question("q"), answer("a")},
		{"empty session", "", question("q"), answer("a")},
		{"question role", "", rag.Message{Role: "assistant", Content: "q"}, answer("a")},
		{"answer role", "", question("q"), rag.Message{Role: "user", Content: "a"}},
		{"missing role", "", rag.Message{Content: "q"}, answer("a")},
		{"unknown role", "", question("q"), rag.Message{Role: "system", Content: "a"}},
		{"empty question", "", question(""), answer("a")},
		{"blank answer", "", question("q"), answer(" \n\t")},
		{"invalid utf-8", "", question("q\xff"), answer("a")},
		{"nul", "", question("q"), answer("a\x00b")},
		{"message id not a uuid", "", rag.Message{ID: "m1", Role: "user", Content: "q"}, answer("a")},
		{"same ids", "", rag.Message{ID: id, Role: "user", Content: "q"}, rag.Message{ID: id, Role: "assistant", Content: "a"}},
		{"other session", "", rag.Message{SessionID: uuid.NewString(), Role: "user", Content: "q"}, answer("a")},
		{"unknown refusal reason", "", question("q"), rag.Message{Role: "assistant", Content: "a", WasRefusal: true, RefusalReason: reason("bored")}},
		{"reason without refusal", "", question("q"), rag.Message{Role: "assistant", Content: "a", RefusalReason: reason(rag.OutOfScope)}},
		{"refusing question", "", rag.Message{Role: "user", Content: "q", WasRefusal: true}, answer("a")},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sid := tt.session
			if sid == "" && tt.name != "empty session" {
				sid = uuid.NewString()
			}
			err := h.AppendExchange(ctx, sid, tt.q, tt.a)
			var e *rag.Error
			if !errors.As(err, &e) || e.Code != rag.EINVALID {
				t.Fatalf("AppendExchange = %v, want a *rag.Error with code %s", err, rag.EINVALID)
			}
			if n := h.Count("chat_messages"); n != 0 {
				t.Errorf("%d messages written", n)
			}
			if n := h.Count("chat_sessions"); n != 0 {
				t.Errorf("%d sessions written", n)
			}
		})
	}
}

func appendExchangeAtomic(t *testing.T, h Store) {
	ctx := context.Background()
	sid := uuid.NewString()
	first := rag.Message{ID: uuid.NewString(), Role: "user", Content: "first q"}
	appendOK(t, h, sid, first, answer("first a"))
	// The answer reuses the first question's id: its insert fails after the
	// question's succeeded.
	q := rag.Message{ID: uuid.NewString(), Role: "user", Content: "second q"}
	a := rag.Message{ID: first.ID, Role: "assistant", Content: "second a"}
	err := h.AppendExchange(ctx, sid, q, a)
	if err == nil {
		t.Fatal("AppendExchange with a duplicate answer id succeeded")
	}
	if code := rag.ErrorCode(err); code != rag.EINTERNAL {
		t.Errorf("error code %s, want %s", code, rag.EINTERNAL)
	}
	msgs := messagesOK(t, h, sid)
	if len(msgs) != 2 || msgs[0].Content != "first q" || msgs[1].Content != "first a" {
		t.Errorf("messages after a failed exchange: %+v", msgs)
	}
	if n := h.Count("chat_messages"); n != 2 {
		t.Errorf("%d messages stored, want 2: the failed exchange's question was written", n)
	}
	// Same in a new session: the session is not created either.
	other := uuid.NewString()
	if err := h.AppendExchange(ctx, other, question("q"), a); err == nil {
		t.Fatal("AppendExchange with a duplicate answer id succeeded")
	}
	if _, err := h.Messages(ctx, other); rag.ErrorCode(err) != rag.ENOTFOUND {
		t.Errorf("session of a failed exchange: err = %v, want %s", err, rag.ENOTFOUND)
	}
	// A cancelled context writes nothing.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := h.AppendExchange(cctx, sid, question("q"), answer("a")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled AppendExchange = %v, want context.Canceled", err)
	}
	if n := h.Count("chat_messages"); n != 2 {
		t.Errorf("%d messages, want 2", n)
	}
}

func concurrentAppend(t *testing.T, h Store) {
	ctx := context.Background()
	sid := uuid.NewString()
	const workers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				err := h.AppendExchange(ctx, sid, question(fmt.Sprintf("q %d %d", w, i)), answer(fmt.Sprintf("a %d %d", w, i)))
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	msgs := messagesOK(t, h, sid)
	if len(msgs) != 2*workers*each {
		t.Fatalf("%d messages, want %d", len(msgs), 2*workers*each)
	}
	seen := map[string]bool{}
	for i := 0; i < len(msgs); i += 2 {
		q, a := msgs[i], msgs[i+1]
		if q.Role != "user" || a.Role != "assistant" || "a"+q.Content[1:] != a.Content {
			t.Errorf("messages %d, %d are not one exchange: %q, %q", i, i+1, q.Content, a.Content)
		}
		if seen[q.Content] {
			t.Errorf("question %q twice", q.Content)
		}
		seen[q.Content] = true
	}
}

// CheckLinks checks that every answer of msgs names a question of msgs
// whose text it answers ("q7" is answered by "a7"), and that there are
// wantAnswers answers.
func CheckLinks(t *testing.T, msgs []rag.Message, wantAnswers int) {
	t.Helper()
	questions := map[string]string{}
	for _, m := range msgs {
		if m.Role == "user" {
			if m.QuestionID != "" {
				t.Errorf("question %s has a question id %s", m.ID, m.QuestionID)
			}
			questions[m.ID] = m.Content
		}
	}
	answers := 0
	for _, m := range msgs {
		if m.Role != "assistant" {
			continue
		}
		answers++
		q, ok := questions[m.QuestionID]
		if !ok {
			t.Errorf("answer %q names question %q, not one of the session's", m.Content, m.QuestionID)
		} else if "a"+q[1:] != m.Content {
			t.Errorf("answer %q is linked to question %q", m.Content, q)
		}
	}
	if answers != wantAnswers {
		t.Errorf("%d answers, want %d", answers, wantAnswers)
	}
}

// Exchanges written at once in one session, all at the same instant:
// each answer names its question.
func concurrentExchangesLinked(t *testing.T, h Store) {
	ctx := context.Background()
	sid := uuid.NewString()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if err := h.AppendExchange(ctx, sid, question(fmt.Sprint("q", i)), answer(fmt.Sprint("a", i))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	msgs := messagesOK(t, h, sid)
	CheckLinks(t, msgs, 16)

	bad := answer("a99")
	bad.QuestionID = uuid.NewString()
	if err := h.AppendExchange(ctx, sid, question("q99"), bad); rag.ErrorCode(err) != rag.EINVALID {
		t.Errorf("an answer naming another question: %v, want validation_error", err)
	}
}

// Retention deletes the sessions idle since the cutoff, messages and all,
// and keeps every other session whole, old messages included.
func deleteSessionsBefore(t *testing.T, h Store) {
	p, ok := h.History.(rag.HistoryPruner)
	if !ok {
		t.Skip("the store keeps history for ever (no rag.HistoryPruner)")
	}
	ctx := context.Background()
	day := 24 * time.Hour
	at := func(text string, ago time.Duration, role string) rag.Message {
		return rag.Message{Role: role, Content: text, CreatedAt: T0.Add(-ago)}
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
			appendOK(t, h, ids[name], at("q", ago, "user"), at("a", ago, "assistant"))
		}
	}
	n, err := p.DeleteSessionsBefore(ctx, T0.Add(-90*day))
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
	if got := h.Count("chat_messages"); got != 6 {
		t.Errorf("%d messages left, want 6", got)
	}
	if n, err := p.DeleteSessionsBefore(ctx, T0.Add(-90*day)); err != nil || n != 0 {
		t.Errorf("second prune = %d, %v; want 0", n, err)
	}
}

// appendOK appends an exchange to session sid, failing the test on an
// error.
func appendOK(t *testing.T, h rag.History, sid string, q, a rag.Message) {
	t.Helper()
	if err := h.AppendExchange(context.Background(), sid, q, a); err != nil {
		t.Fatal(err)
	}
}

// messagesOK lists session sid's messages, failing the test on an error.
func messagesOK(t *testing.T, h rag.History, sid string) []rag.Message {
	t.Helper()
	msgs, err := h.Messages(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}
