package tutor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

// scripted retriever and evidence finder: the flow is what is under test.
type stubRetriever struct {
	scores []float64
	err    error
}

func (s stubRetriever) Retrieve(ctx context.Context, q string, k int) ([]rag.ScoredChunk, error) {
	var out []rag.ScoredChunk
	for i, sc := range s.scores {
		out = append(out, rag.ScoredChunk{Chunk: rag.Chunk{ID: string(rune('a' + i)), ModuleID: "m", ChapterID: "c", SectionHeading: "S", Anchor: "s"}, Score: sc})
	}
	return out, s.err
}

type stubEvidence struct{ found bool }

func (stubEvidence) Read(q string) *analysis.Question { return &analysis.Question{Text: q} }

func (s stubEvidence) Evidence(_ context.Context, q *analysis.Question, chunks []rag.ScoredChunk) []rag.Passage {
	if !s.found {
		return nil
	}
	return []rag.Passage{{Text: "A topic is a named channel.", Heading: rag.Heading{Text: "Topics", Anchor: "topics"}, Chunk: &chunks[0]}}
}

func (s stubEvidence) SelectedEvidence(q *analysis.Question, sel string) []rag.Passage {
	if !s.found {
		return nil
	}
	return []rag.Passage{{Text: sel}}
}

func (stubEvidence) Topic(q *analysis.Question) string { return "banana bread" }

type countingGenerator struct {
	calls    int
	declined bool
	err      error
}

func (g *countingGenerator) Generate(ctx context.Context, req rag.GenerateRequest, emit func(string) error) (rag.Generated, error) {
	g.calls++
	if g.err != nil {
		return rag.Generated{}, g.err
	}
	if g.declined {
		return rag.Generated{Text: rag.NotInContext, Finish: rag.FinishStop}, nil
	}
	text := "answer: " + req.Evidence[0].Text
	if emit != nil {
		if err := emit(text); err != nil {
			return rag.Generated{}, err
		}
	}
	return rag.Generated{Text: text, Finish: rag.FinishStop}, nil
}

func newTutor(r rag.Retriever, found bool, gen rag.Generator) *Tutor {
	cfg := DefaultConfig()
	cfg.CourseName = "Physical AI & Humanoid Robotics"
	return &Tutor{
		Config:     cfg,
		Retriever:  r,
		Evidence:   stubEvidence{found: found},
		Scope:      DefaultScope(),
		Modules:    []string{"Physical AI Foundations", "ROS 2 Fundamentals"},
		Extractive: gen,
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func TestFlow(t *testing.T) {
	tests := []struct {
		name     string
		question string
		selected string
		scores   []float64
		evidence bool
		want     rag.RefusalReason // "" = answer
		wantMax  any               // max_score in the log
		wantN    int               // chunks_retrieved in the log
	}{
		{name: "answer", question: "What is a topic?", scores: []float64{0.9, 0.6}, evidence: true},
		{name: "nothing retrieved", question: "banana bread", scores: nil, want: rag.EmptyRetrieval, wantMax: nil},
		{name: "all below 0.5", question: "banana bread", scores: []float64{0.49, 0.2}, want: rag.EmptyRetrieval, wantMax: 0.49, wantN: 2},
		{name: "0.5 is not empty", question: "q", scores: []float64{0.5}, want: rag.InsufficientContext, wantMax: 0.5, wantN: 1},
		{name: "below 0.7", question: "q", scores: []float64{0.69, 0.55}, evidence: true, want: rag.InsufficientContext, wantMax: 0.69, wantN: 2},
		{name: "0.7 is confident", question: "What is a topic?", scores: []float64{0.7}, evidence: true},
		{name: "out of scope after the gates", question: "How do I do PID tuning on my arm?", scores: []float64{0.8}, evidence: true, want: rag.OutOfScope, wantMax: 0.8, wantN: 1},
		{name: "out of scope but low score stays empty", question: "How do I do PID tuning?", scores: []float64{0.3}, want: rag.EmptyRetrieval, wantMax: 0.3, wantN: 1},
		{name: "confident but no passage answers", question: "q", scores: []float64{0.9}, evidence: false, want: rag.InsufficientContext, wantMax: 0.9, wantN: 1},
		{name: "selected text sufficient", question: "q", selected: "text", evidence: true},
		{name: "selected text insufficient", question: "q", selected: "text", evidence: false, want: rag.SelectedTextInsufficient, wantMax: nil},
		{name: "selected text never retrieves", question: "PID tuning?", selected: "text", scores: []float64{0.1}, evidence: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gen := &countingGenerator{}
			tu := newTutor(stubRetriever{scores: tt.scores}, tt.evidence, gen)
			sid := "550e8400-e29b-41d4-a716-446655440000"
			req := rag.ChatRequest{Question: tt.question, SelectedText: tt.selected, SessionID: sid}
			resp, err := tu.Ask(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			rl := NewRefusalLog(&log)
			rl.Now = func() time.Time { return time.Date(2024, 12, 24, 10, 30, 0, 0, time.UTC) }
			if err := rl.Log(req, resp); err != nil {
				t.Fatal(err)
			}
			if resp.SessionID != sid {
				t.Errorf("session_id = %q", resp.SessionID)
			}
			if tt.want == "" {
				if resp.WasRefusal || resp.RefusalReason != nil {
					t.Fatalf("refused (%v), want an answer", *resp.RefusalReason)
				}
				if gen.calls != 1 {
					t.Errorf("generator called %d times, want 1", gen.calls)
				}
				if log.Len() != 0 {
					t.Errorf("an answer wrote a refusal log line: %s", log.String())
				}
				return
			}
			if !resp.WasRefusal || resp.RefusalReason == nil || *resp.RefusalReason != tt.want {
				t.Fatalf("got refusal=%v reason=%v, want %s", resp.WasRefusal, resp.RefusalReason, tt.want)
			}
			if gen.calls != 0 {
				t.Errorf("generator called %d times on a refusal path", gen.calls)
			}
			if len(resp.Sources) != 0 || resp.Sources == nil {
				t.Errorf("refusal sources = %#v, want an empty list", resp.Sources)
			}
			var ev map[string]any
			if err := json.Unmarshal(log.Bytes(), &ev); err != nil {
				t.Fatalf("refusal log %q: %v", log.String(), err)
			}
			want := map[string]any{
				"event": "refusal", "timestamp": "2024-12-24T10:30:00Z", "session_id": sid,
				"question": tt.question, "refusal_reason": string(tt.want),
				"chunks_retrieved": float64(tt.wantN), "max_score": tt.wantMax,
			}
			if len(ev) != len(want) {
				t.Errorf("log has fields %v, want exactly %v", keys(ev), keys(want))
			}
			for k, v := range want {
				if ev[k] != v {
					t.Errorf("log %s = %v, want %v", k, ev[k], v)
				}
			}
		})
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestMessages(t *testing.T) {
	tu := newTutor(stubRetriever{scores: []float64{0.2}}, false, &countingGenerator{})
	resp, _ := tu.Ask(context.Background(), rag.ChatRequest{Question: "banana bread?"}, nil)
	if !strings.Contains(resp.Answer, "If you're looking for information on banana bread, this may be outside the scope of the Physical AI & Humanoid Robotics course.") {
		t.Errorf("empty retrieval message lacks the topic sentence: %q", resp.Answer)
	}
	if got := EmptyRetrievalMessage("X", ""); strings.Contains(got, "{") || strings.Contains(got, "information on") {
		t.Errorf("no topic: the sentence should be left out, got %q", got)
	}
	// No course named: the templates say "this course", "This textbook".
	if got := EmptyRetrievalMessage("", "banana bread"); !strings.HasSuffix(got, "this may be outside the scope of this course.") {
		t.Errorf("no course name: %q", got)
	}
	for course, want := range map[string]string{
		"The Embedded Rust Book": "outside the scope of the Embedded Rust Book course.",
		"the Odin Project":       "outside the scope of the Odin Project course.",
		"Theory of Computation":  "outside the scope of the Theory of Computation course.",
	} {
		if got := EmptyRetrievalMessage(course, "banana bread"); !strings.HasSuffix(got, want) {
			t.Errorf("EmptyRetrievalMessage(%q) = %q, want it to end %q", course, got, want)
		}
	}
	if got := OutOfScopeMessage("The Embedded Rust Book", []string{"M"}, "PWM"); !strings.Contains(got, "\n\nThe Embedded Rust Book textbook covers:\n") {
		t.Errorf("OutOfScopeMessage repeats the article: %q", got)
	}
	if got := OutOfScopeMessage("", []string{"M"}, "PWM"); !strings.Contains(got, "\n\nThis textbook covers:\n- M\n") {
		t.Errorf("no course name: %q", got)
	}
	if DefaultConfig().CourseName != "" {
		t.Errorf("the default config names a course: %q; the book names it", DefaultConfig().CourseName)
	}

	tu.Retriever = stubRetriever{scores: []float64{0.9}}
	resp, _ = tu.Ask(context.Background(), rag.ChatRequest{Question: "What PWM frequency should I use?"}, nil)
	want := "This topic is outside the scope of this course.\n\nThe Physical AI & Humanoid Robotics textbook covers:\n- Physical AI Foundations\n- ROS 2 Fundamentals\n\nFor PWM (low-level motor control), please refer to specialized resources."
	if resp.Answer != want {
		t.Errorf("out-of-scope message =\n%s\nwant\n%s", resp.Answer, want)
	}
}

func TestScope(t *testing.T) {
	tests := []struct {
		q    string
		want string
	}{
		{"How do I do pid TUNING?", "pid TUNING (advanced control theory)"},
		{"explain model predictive control", "model predictive (advanced control theory)"},
		{"Set up a catkin workspace", "catkin (ROS 1 (this course is ROS 2 only))"},
		{"ROS1 or ROS 2?", "ROS1 (ROS 1 (this course is ROS 2 only))"},
		{"How do I fine-tune a neural network?", "fine-tune a neural (training foundation models)"},
		{"roslaunch my bringup.launch", "roslaunch my bringup.launch (ROS 1 (this course is ROS 2 only))"},
		{"Is PyBullet good?", "PyBullet (simulation platforms this course does not cover)"},
		{"What is a ROS 2 topic?", ""},
		{"How does a motor driver node publish?", "motor driver (low-level motor control)"},
	}
	s := DefaultScope()
	for _, tt := range tests {
		got, ok := s.Match(tt.q)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("Match(%q) = %q, %v; want %q", tt.q, got, ok, tt.want)
		}
	}
	if _, err := NewScope([]ScopeRule{{Topic: "x", Pattern: "("}}); err == nil {
		t.Error("a broken pattern was accepted")
	}
}

func TestGeneratorFailure(t *testing.T) {
	boom := errors.New("upstream down")
	fallback := &countingGenerator{}
	tu := newTutor(stubRetriever{scores: []float64{0.9}}, true, fallback)
	tu.LLM = &countingGenerator{err: boom}
	tu.Config.FallbackOnGeneratorError = false
	if _, err := tu.Ask(context.Background(), rag.ChatRequest{Question: "q"}, nil); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the generator's error", err)
	}
	tu.Config.FallbackOnGeneratorError = true
	resp, err := tu.Ask(context.Background(), rag.ChatRequest{Question: "q"}, nil)
	if err != nil || resp.WasRefusal || fallback.calls != 1 {
		t.Fatalf("fallback: resp=%+v err=%v calls=%d", resp, err, fallback.calls)
	}

	tu.LLM = &countingGenerator{declined: true}
	resp, _ = tu.Ask(context.Background(), rag.ChatRequest{Question: "q"}, nil)
	if !resp.WasRefusal || *resp.RefusalReason != rag.InsufficientContext {
		t.Fatalf("a declined answer = %+v, want insufficient_context", resp)
	}
	resp, _ = tu.Ask(context.Background(), rag.ChatRequest{Question: "q", SelectedText: "some text"}, nil)
	if !resp.WasRefusal || *resp.RefusalReason != rag.SelectedTextInsufficient {
		t.Fatalf("a declined answer about a selection = %+v, want selected_text_insufficient", resp)
	}
}

type recStream struct{ events []string }

func (r *recStream) Sources(s []rag.Source) error { r.events = append(r.events, "sources"); return nil }
func (r *recStream) Delta(string) error           { r.events = append(r.events, "delta"); return nil }
func (r *recStream) Replace(string, []rag.Source) error {
	r.events = append(r.events, "replace")
	return nil
}

func TestStreamOrder(t *testing.T) {
	tu := newTutor(stubRetriever{scores: []float64{0.9}}, true, streamingGen{})
	var st recStream
	resp, err := tu.Ask(context.Background(), rag.ChatRequest{Question: "q"}, &st)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(st.events, ",") != "sources,delta,delta" {
		t.Errorf("stream events = %v", st.events)
	}
	if len(resp.Sources) != 1 || resp.Sources[0].SectionHeading != "Topics" || resp.Sources[0].Anchor != "topics" {
		t.Errorf("sources = %+v", resp.Sources)
	}
	st = recStream{}
	tu.Retriever = stubRetriever{scores: []float64{0.1}}
	if _, err := tu.Ask(context.Background(), rag.ChatRequest{Question: "q"}, &st); err != nil || len(st.events) != 0 {
		t.Errorf("a refusal streamed %v (err %v)", st.events, err)
	}
}

type streamingGen struct{}

func (streamingGen) Generate(ctx context.Context, req rag.GenerateRequest, emit func(string) error) (rag.Generated, error) {
	for _, p := range []string{"a ", "b"} {
		if err := emit(p); err != nil {
			return rag.Generated{}, err
		}
	}
	return rag.Generated{Text: "a b", Finish: rag.FinishStop}, nil
}
