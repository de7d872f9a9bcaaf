package http

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/textbook-rag/rag"
)

// echoTutor answers every question with its own text, streaming it when
// asked, so that what reaches the tutor can be checked in history.
type echoTutor struct{ calls atomic.Int64 }

func (e *echoTutor) Ask(ctx context.Context, req rag.ChatRequest, stream rag.Stream) (rag.ChatResponse, error) {
	e.calls.Add(1)
	if stream != nil {
		if err := stream.Sources(testSources); err != nil {
			return rag.ChatResponse{}, err
		}
		if err := stream.Delta(req.Question); err != nil {
			return rag.ChatResponse{}, err
		}
	}
	return rag.ChatResponse{Answer: req.Question, Sources: testSources, SessionID: req.SessionID}, nil
}

// FuzzChatRequest sends arbitrary bodies to both chat endpoints. Whatever
// the body: no 5xx and no panic; a rejected body is a well-formed error
// that never reached the tutor; an accepted one is recorded whole, with
// the question as the tutor saw it.
func FuzzChatRequest(f *testing.F) {
	seeds := []string{
		`{"question":"What is URDF?"}`,
		`{"question":"What is URDF?\u0000"}`,
		`{"question":"What is this?","selected_text":"Nodes\u0000talk."}`,
		`{"question":"\u001b[2J\u0007ring","selected_text":"\u007f\u0085"}`,
		"{\"question\":\"caf\xe9\"}",
		"\xef\xbb\xbf{\"question\":\"bom\"}",
		`{"question":"\ud800 lone surrogate"}`,
		`{"question":"a","question":"b"}`,
		`{"question":null,"selected_text":null,"session_id":null}`,
		`{"question":"q","session_id":"6F1C2A4E-1B2C-4D5E-8F90-123456789ABC"}`,
		`{"question":"q","session_id":"{6f1c2a4e-1b2c-4d5e-8f90-123456789abc}"}`,
		`{"question":"q","session_id":"urn:uuid:6f1c2a4e-1b2c-4d5e-8f90-123456789abc"}`,
		`{"question":["q"]}`,
		`{"question":{"$gt":""}}`,
		`[{"question":"q"}]`,
		`{"question":"` + strings.Repeat("é", 1001) + `"}`,
		`{"question":"q","selected_text":"` + strings.Repeat("a", 5001) + `"}`,
		`{"question":"q"} trailing`,
		`{"question":"q"`,
		`null`,
		``,
		`{"question":"   "}`,
		`{"question":"\t\r\n"}`,
		`{"question":1e999}`,
		strings.Repeat("[", 10000),
	}
	for _, s := range seeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	tutor := &echoTutor{}
	env := newEnv(f, nil, func(s *Server) { s.Tutor = tutor })
	f.Fuzz(func(t *testing.T, body []byte, stream bool) {
		path := "/api/chat"
		if stream {
			path = "/api/chat/stream"
		}
		before := tutor.calls.Load()
		w := env.do("POST", path, string(body), header("Content-Type", "application/json"))
		asked := tutor.calls.Load() != before
		switch {
		case w.Code == 200:
		case w.Code >= 400 && w.Code < 500:
			e := decode[ErrorBody](t, w)
			if StatusCode(e.Error) != w.Code || e.Message == "" || e.Details == nil {
				t.Fatalf("status %d with error body %s", w.Code, w.Body)
			}
			if asked {
				t.Fatalf("rejected with %d after the tutor ran: %s", w.Code, w.Body)
			}
			return
		default:
			t.Fatalf("status %d for body %q: %s", w.Code, body, w.Body)
		}
		var resp rag.ChatResponse
		if stream {
			evs := parseSSE(t, w.Body.String())
			if len(evs) == 0 || evs[len(evs)-1].Name != "done" {
				t.Fatalf("stream did not end with done: %s", w.Body)
			}
			if err := json.Unmarshal([]byte(evs[len(evs)-1].Data), &resp); err != nil {
				t.Fatal(err)
			}
		} else {
			resp = decode[rag.ChatResponse](t, w)
		}
		msgs, err := env.history.Messages(context.Background(), resp.SessionID)
		if err != nil {
			t.Fatalf("accepted, but history of %s: %v", resp.SessionID, err)
		}
		var q, a *rag.Message
		for i := range msgs {
			if msgs[i].Role == "assistant" && msgs[i].Content == resp.Answer {
				a = &msgs[i]
			}
		}
		for i := range msgs {
			if a != nil && msgs[i].ID == a.QuestionID {
				q = &msgs[i]
			}
		}
		if a == nil || q == nil || q.Role != "user" || q.Content != resp.Answer {
			t.Fatalf("history of %s does not hold the exchange %q whole: %+v", resp.SessionID, resp.Answer, msgs)
		}
	})
}
