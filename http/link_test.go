package http

import (
	"fmt"
	"sync"
	"testing"
)

// Two questions in one session at once: the messages API may list both
// questions before the answers, and each answer names its question.
func TestMessagesLinkAnswersToQuestions(t *testing.T) {
	env := newEnv(t, nil, func(s *Server) { s.Tutor = &echoTutor{} })
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			if w := env.do("POST", "/api/chat", fmt.Sprintf(`{"question":"question %d","session_id":"%s"}`, i, sid)); w.Code != 200 {
				t.Errorf("status %d: %s", w.Code, w.Body)
			}
		})
	}
	wg.Wait()
	w := env.do("GET", "/api/chat/sessions/"+sid+"/messages", "")
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	type msg struct {
		ID         string  `json:"id"`
		QuestionID *string `json:"question_id"`
		Role       string  `json:"role"`
		Content    string  `json:"content"`
	}
	body := decode[struct{ Messages []msg }](t, w)
	questions := map[string]string{}
	for _, m := range body.Messages {
		if m.Role == "user" {
			if m.ID == "" || m.QuestionID != nil {
				t.Errorf("question %+v: want an id and a null question_id", m)
			}
			questions[m.ID] = m.Content
		}
	}
	answers := 0
	for _, m := range body.Messages {
		if m.Role != "assistant" {
			continue
		}
		answers++
		// The echo tutor answers with the question's text.
		if m.QuestionID == nil || questions[*m.QuestionID] != m.Content {
			t.Errorf("answer %+v is not linked to its question (questions %v)", m, questions)
		}
	}
	if answers != 2 || len(questions) != 2 {
		t.Errorf("%d questions and %d answers, want 2 and 2: %s", len(questions), answers, w.Body)
	}
}
