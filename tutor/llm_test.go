package tutor

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

// scriptedLLM replies with fixed pieces of text, streamed when asked to,
// and a fixed finish state or error.
type scriptedLLM struct {
	pieces []string
	finish string
	err    error
	calls  int
}

func (g *scriptedLLM) Generate(ctx context.Context, req rag.GenerateRequest, emit func(string) error) (rag.Generated, error) {
	g.calls++
	for _, p := range g.pieces {
		if emit != nil {
			if err := emit(p); err != nil {
				return rag.Generated{}, err
			}
		}
	}
	if g.err != nil {
		return rag.Generated{}, g.err
	}
	return rag.Generated{Text: strings.Join(g.pieces, ""), Finish: g.finish}, nil
}

// readerStream keeps what a reader of the stream sees: deltas add to the
// text, replace swaps it.
type readerStream struct {
	text     string
	replaced bool
	events   int
}

func (r *readerStream) Sources([]rag.Source) error { r.events++; return nil }
func (r *readerStream) Delta(s string) error       { r.events++; r.text += s; return nil }
func (r *readerStream) Replace(s string, _ []rag.Source) error {
	r.events++
	r.text, r.replaced = s, true
	return nil
}

func TestLanguageModelText(t *testing.T) {
	const fallback = "answer: A topic is a named channel."
	cases := []struct {
		name     string
		llm      scriptedLLM
		noRefuse bool // OnOutsideKnowledge "refuse"
		noFall   bool // FallbackOnGeneratorError off
		noEvid   bool // the book's check found no passage
		want     string
		reason   rag.RefusalReason
		err      bool
	}{
		{name: "accepted", llm: scriptedLLM{pieces: []string{" A topic is ", "a channel. It carries\n", "messages.  "}, finish: "stop"},
			want: "A topic is a channel. It carries\nmessages."},
		{name: "outside knowledge in sentence 2", llm: scriptedLLM{pieces: []string{"A topic is a channel. ", "Typically it is fast."}, finish: "stop"}, want: fallback},
		{name: "outside knowledge refused", llm: scriptedLLM{pieces: []string{"A topic is a channel. ", "In general, yes."}, finish: "stop"}, noRefuse: true, reason: rag.InsufficientContext},
		{name: "marker", llm: scriptedLLM{pieces: []string{"NOT_IN", "_CONTEXT"}, finish: "stop"}, reason: rag.InsufficientContext},
		{name: "trailing marker", llm: scriptedLLM{pieces: []string{"A topic is a channel.\n", "NOT_IN_CONTEXT"}, finish: "stop"}, want: fallback},
		{name: "cut stream", llm: scriptedLLM{pieces: []string{"A topic is a channel. You learned that robo"}, finish: rag.FinishCut}, want: fallback},
		{name: "length", llm: scriptedLLM{pieces: []string{"A topic is a channel. It"}, finish: "length"}, want: fallback},
		{name: "content filter", llm: scriptedLLM{pieces: []string{"A topic is a channel."}, finish: "content_filter"}, want: fallback},
		{name: "empty", llm: scriptedLLM{finish: "stop"}, want: fallback},
		{name: "blank", llm: scriptedLLM{pieces: []string{" \n "}, finish: "stop"}, want: fallback},
		{name: "NUL", llm: scriptedLLM{pieces: []string{"A topic\x00 is a channel."}, finish: "stop"}, want: fallback},
		{name: "escape", llm: scriptedLLM{pieces: []string{"A topic is a channel. \x1b[31mRed.\n"}, finish: "stop"}, want: fallback},
		{name: "failure after text", llm: scriptedLLM{pieces: []string{"A topic is a channel. "}, err: errors.New("connection reset")}, want: fallback},
		{name: "rejected, no fallback", llm: scriptedLLM{pieces: []string{"A topic is a channel. You"}, finish: rag.FinishCut}, noFall: true, err: true},
		{name: "rejected, no passage", llm: scriptedLLM{pieces: []string{"Typically so."}, finish: "stop"}, noEvid: true, reason: rag.InsufficientContext},
		{name: "accepted, no passage", llm: scriptedLLM{pieces: []string{"From the chunk."}, finish: "stop"}, noEvid: true, want: "From the chunk."},
	}
	for _, tc := range cases {
		for _, streamed := range []bool{false, true} {
			name := tc.name
			if streamed {
				name += "/streamed"
			}
			t.Run(name, func(t *testing.T) {
				llm := tc.llm
				tu := newTutor(stubRetriever{scores: []float64{0.9}}, !tc.noEvid, &countingGenerator{})
				tu.LLM = &llm
				if tc.noRefuse {
					tu.Config.OnOutsideKnowledge = "refuse"
				}
				tu.Config.FallbackOnGeneratorError = !tc.noFall
				var st *readerStream
				var stream rag.Stream
				if streamed {
					st = &readerStream{}
					stream = st
				}
				resp, err := tu.Ask(context.Background(), rag.ChatRequest{Question: "q", SessionID: "s"}, stream)
				if tc.err {
					if rag.ErrorCode(err) != rag.EOPENAI {
						t.Fatalf("err = %v, want %s", err, rag.EOPENAI)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if llm.calls != 1 {
					t.Errorf("%d LLM calls, want 1", llm.calls)
				}
				if tc.reason != "" {
					if !resp.WasRefusal || *resp.RefusalReason != tc.reason || len(resp.Sources) != 0 {
						t.Fatalf("response %+v, want refusal %s", resp, tc.reason)
					}
				} else if resp.WasRefusal || resp.Answer != tc.want || len(resp.Sources) == 0 {
					t.Fatalf("response %+v, want answer %q with sources", resp, tc.want)
				}
				if st != nil && st.events > 0 && st.text != resp.Answer {
					t.Errorf("the reader saw %q (replaced %v), the response is %q", st.text, st.replaced, resp.Answer)
				}
				if st != nil && resp.WasRefusal && st.events > 0 && !st.replaced {
					t.Errorf("a refusal after text was not a replace")
				}
			})
		}
	}
}

// TestScreenPieces checks that how the text is cut into pieces does not
// change what is released.
func TestScreenPieces(t *testing.T) {
	text := "  First one. Second?\n\nThird!  Fourth without end"
	whole := &screen{}
	a, _ := whole.feed(text)
	b, _ := whole.finish(rag.FinishStop)
	want := strings.TrimSpace(text)
	if a+b != want || whole.released.String() != want {
		t.Fatalf("whole: %q, want %q", a+b, want)
	}
	bytewise := &screen{}
	var got strings.Builder
	for i := 0; i < len(text); i++ {
		s, rej := bytewise.feed(text[i : i+1])
		if rej != nil {
			t.Fatal(rej)
		}
		got.WriteString(s)
	}
	s, _ := bytewise.finish(rag.FinishStop)
	got.WriteString(s)
	if got.String() != want {
		t.Fatalf("byte by byte: %q, want %q", got.String(), want)
	}
}
