package http

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// withFeedback gives the server the test history's feedback side.
func withFeedback(s *Server) {
	s.Feedback = s.History.(*testHistory).History.(rag.FeedbackStore)
}

func TestFeedback(t *testing.T) {
	env := newEnv(t, nil, withFeedback)
	answer := decode[rag.ChatResponse](t, env.do("POST", "/api/chat", jsonBody(t, map[string]string{"question": "What is a node?", "session_id": sid})))
	refusal := decode[rag.ChatResponse](t, env.do("POST", "/api/chat", jsonBody(t, map[string]string{"question": "refuse me", "session_id": sid})))
	if answer.MessageID == "" || refusal.MessageID == "" {
		t.Fatalf("responses without message ids: %+v %+v", answer, refusal)
	}
	msgs, err := env.history.Messages(t.Context(), sid)
	if err != nil || len(msgs) != 4 {
		t.Fatalf("history: %v, %d messages", err, len(msgs))
	}
	var questionID string
	for _, m := range msgs {
		if m.ID == answer.MessageID {
			questionID = m.QuestionID
		}
	}
	if questionID == "" {
		t.Fatalf("message_id %s is not a stored answer's id: %+v", answer.MessageID, msgs)
	}
	url := func(id string) string { return "/api/chat/messages/" + id + "/feedback" }

	tests := []struct {
		name, id, body string
		opts           []reqOpt
		status         int
		code, field    string
	}{
		{"helpful", answer.MessageID, `{"session_id":"` + sid + `","rating":"helpful"}`, nil, 200, "", ""},
		{"changed with a comment", answer.MessageID, `{"session_id":"` + sid + `","rating":"not_helpful","comment":" No example. "}`, nil, 200, "", ""},
		{"unknown message", uuid.NewString(), `{"session_id":"` + sid + `","rating":"helpful"}`, nil, 404, "not_found", ""},
		{"another session", answer.MessageID, `{"session_id":"` + uuid.NewString() + `","rating":"helpful"}`, nil, 404, "not_found", ""},
		{"a refusal", refusal.MessageID, `{"session_id":"` + sid + `","rating":"not_helpful"}`, nil, 422, "feedback_not_allowed", ""},
		{"a question", questionID, `{"session_id":"` + sid + `","rating":"helpful"}`, nil, 422, "feedback_not_allowed", ""},
		{"bad rating", answer.MessageID, `{"session_id":"` + sid + `","rating":"great"}`, nil, 400, "validation_error", "rating"},
		{"no rating", answer.MessageID, `{"session_id":"` + sid + `"}`, nil, 400, "validation_error", "rating"},
		{"no session", answer.MessageID, `{"rating":"helpful"}`, nil, 400, "validation_error", "session_id"},
		{"session not a uuid", answer.MessageID, `{"session_id":"abc","rating":"helpful"}`, nil, 400, "validation_error", "session_id"},
		{"id not a uuid", "42", `{"session_id":"` + sid + `","rating":"helpful"}`, nil, 400, "validation_error", "id"},
		{"comment too long", answer.MessageID, `{"session_id":"` + sid + `","rating":"not_helpful","comment":"` + strings.Repeat("x", rag.MaxFeedbackCommentChars+1) + `"}`, nil, 400, "validation_error", "comment"},
		{"comment not a string", answer.MessageID, `{"session_id":"` + sid + `","rating":"not_helpful","comment":3}`, nil, 400, "validation_error", "comment"},
		{"malformed JSON", answer.MessageID, `{"session_id":`, nil, 400, "validation_error", ""},
		{"two objects", answer.MessageID, `{"rating":"helpful"} {}`, nil, 400, "validation_error", ""},
		{"wrong content type", answer.MessageID, `{"session_id":"` + sid + `","rating":"helpful"}`, []reqOpt{header("Content-Type", "text/plain")}, 415, "unsupported_media_type", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := env.do("POST", url(tt.id), tt.body, tt.opts...)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if tt.status == 200 {
				return
			}
			e := decode[ErrorBody](t, w)
			if e.Error != tt.code || e.Message == "" {
				t.Fatalf("error %+v, want code %s", e, tt.code)
			}
			if tt.field != "" && e.Details["field"] != tt.field {
				t.Fatalf("details %v, want field %s", e.Details, tt.field)
			}
		})
	}

	w := env.do("POST", url(answer.MessageID), `{"session_id":"`+sid+`","rating":"not_helpful","comment":"Too short."}`)
	got := decode[rag.Feedback](t, w)
	want := rag.Feedback{MessageID: answer.MessageID, Rating: rag.NotHelpful, Comment: "Too short.", UpdatedAt: env.clock.Now()}
	if !got.UpdatedAt.Equal(want.UpdatedAt) {
		// The store's own clock dates feedback; the server's is fake.
		want.UpdatedAt = got.UpdatedAt
	}
	if got != want {
		t.Fatalf("stored feedback:\n got %+v\nwant %+v", got, want)
	}
	if w := env.do("GET", url(answer.MessageID), ""); w.Code != 405 {
		t.Errorf("GET: status %d, want 405", w.Code)
	}
	metrics := env.do("GET", "/metrics", "").Body.String()
	for _, line := range []string{`feedback_total{rating="helpful"} 1`, `feedback_total{rating="not_helpful"} 2`} {
		if !strings.Contains(metrics, line) {
			t.Errorf("metrics lack %s", line)
		}
	}
}
