package openai

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/textbook-rag/rag"
)

// countingTransport counts the bytes read of every response body.
type countingTransport struct{ read atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		resp.Body = countingBody{resp.Body, &c.read}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// A provider that ignores max_tokens: the generator reads no more of its
// reply than the bounds tied to MaxTokens allow, and reports what it read
// as cut at max_tokens (finish "length"), which the tutor answers with
// its fallback; streamed, it passes on no more text than the answer's
// bound. Both ways a reply is sent: whole, and streamed; both bounds: a
// reply far over the wire's (4 MB), and an answer over the text's but
// small on the wire.
func TestGenerateBoundsTheReply(t *testing.T) {
	const maxTokens = 64
	textCap := int64(maxTokens * AnswerBytesPerToken)
	wireCap := int64(maxTokens*WireBytesPerToken + wireSlack)
	for _, tc := range []struct {
		name   string
		stream bool
		size   int // bytes of answer text the provider sends
	}{
		{"whole, 4 MB", false, 4 << 20},
		{"whole, over the answer's bound", false, int(textCap) + 100},
		{"streamed, 4 MB", true, 4 << 20},
		{"streamed, over the answer's bound", true, int(textCap) + 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Repeat("A topic is a named channel. ", tc.size/28+1)[:tc.size]
			_, cfg := serve(t, func(w http.ResponseWriter, body map[string]any, n int64) {
				if body["max_tokens"] != float64(maxTokens) {
					t.Errorf("max_tokens %v, want %d", body["max_tokens"], maxTokens)
				}
				if !tc.stream {
					chatReply(w, text)
					return
				}
				var parts []string
				for i := 0; i < len(text); i += 4096 {
					parts = append(parts, text[i:min(i+4096, len(text))])
				}
				streamReply(w, parts...)
			})
			counter := &countingTransport{}
			cfg.HTTPClient = &http.Client{Transport: counter}
			cfg.MaxTokens = maxTokens
			g := NewGenerator(cfg)
			var emitted int64
			var emit func(string) error
			if tc.stream {
				emit = func(d string) error {
					emitted += int64(len(d))
					return nil
				}
			}
			out, err := g.Generate(context.Background(), request, emit)
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if out.Finish != "length" || int64(len(out.Text)) > textCap || emitted > textCap {
				t.Errorf("Generate = %d bytes of text, finish %q, %d bytes passed on; want finish \"length\" and at most %d bytes", len(out.Text), out.Finish, emitted, textCap)
			}
			if !strings.HasPrefix(text, out.Text) {
				t.Errorf("the text is not the reply's beginning")
			}
			t.Logf("%d bytes of text sent: %d bytes read, %d of text kept, %d passed on", tc.size, counter.read.Load(), len(out.Text), emitted)
			if got := counter.read.Load(); got > wireCap+1 {
				t.Errorf("read %d bytes of the reply, want at most %d", got, wireCap+1)
			}
			if g.Calls() != 1 {
				t.Errorf("%d calls: a reply over the bound is not retried", g.Calls())
			}
		})
	}
}

// A reply within the bounds is read whole, however close to them.
func TestGenerateWithinTheBounds(t *testing.T) {
	const maxTokens = 64
	text := strings.Repeat("x", maxTokens*AnswerBytesPerToken)
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			_, cfg := serve(t, func(w http.ResponseWriter, body map[string]any, n int64) {
				if stream {
					streamReply(w, text[:100], text[100:])
					return
				}
				chatReply(w, text)
			})
			cfg.MaxTokens = maxTokens
			var emit func(string) error
			if stream {
				emit = func(string) error { return nil }
			}
			out, err := NewGenerator(cfg).Generate(context.Background(), request, emit)
			if err != nil || out.Finish != rag.FinishStop || out.Text != text {
				t.Errorf("Generate = %d bytes, finish %q, %v; want the whole text", len(out.Text), out.Finish, err)
			}
		})
	}
}
