package page

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Only the first maxRun runes of a long run reach the encoder, so counting
// stays linear; prose and code reach it whole, so their counts are
// cl100k's own.
func TestBPEPieces(t *testing.T) {
	prose := "A robot senses, thinks and acts.\n\n```python\nx = compute(x)  # 42\n```\n| a | b |\n"
	tests := []struct {
		name string
		in   string
	}{
		{"one long word", strings.Repeat("a", 100_000)},
		{"long indent", strings.Repeat(" ", 2000) + "x"},
		{"punctuation run", "see" + strings.Repeat("=-", 5000) + "end"},
		{"digits", strings.Repeat("7", 10_000)},
		{"box drawing", strings.Repeat("─", 3000)},
		{"word inside prose", prose + strings.Repeat("é", 500) + prose},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var whole strings.Builder
			for _, p := range bpePieces(tt.in) {
				if longestRun(p.text) > maxRun {
					t.Fatalf("the encoder gets a run of %d runes", longestRun(p.text))
				}
				if p.run != "" {
					whole.WriteString(p.run)
				} else {
					whole.WriteString(p.text)
				}
			}
			if whole.String() != tt.in {
				t.Fatal("pieces do not add up to the text")
			}
		})
	}
	if ps := bpePieces(prose); len(ps) != 1 {
		t.Errorf("ordinary text was cut into %d pieces", len(ps))
	}
	enc, err := encoder()
	if err != nil {
		t.Fatal(err)
	}
	if got := CountTokens(prose); got != len(enc.EncodeOrdinary(prose)) {
		t.Errorf("CountTokens(prose) = %d, cl100k says %d", got, len(enc.EncodeOrdinary(prose)))
	}
}

func longestRun(s string) int {
	best, n, kind := 0, 0, -1
	for _, r := range s {
		if k := runeKind(r); k == kind {
			n++
		} else {
			kind, n = k, 1
		}
		best = max(best, n)
	}
	return best
}

func BenchmarkCountTokensLongWord(b *testing.B) {
	word := strings.Repeat("abcdefghij", 100_000) // 1 MB, one pre-token
	CountTokens("load the encoding")
	for b.Loop() {
		CountTokens(word)
	}
}

// The encoder built here is tiktoken-go's cl100k_base: same tokens for
// prose, code, special-token text and odd characters; and once nothing
// holds it, a collection frees it and the next count loads it again.
func TestEncoderIsCL100K(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	want, err := tiktoken.GetEncoding(tiktoken.MODEL_CL100K_BASE)
	if err != nil {
		t.Fatal(err)
	}
	got, err := encoder()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"A robot senses, thinks and acts. It's the 1234th time we've done it!",
		"```python\nimport rclpy\nnode = rclpy.create_node('talker')  # 42\n```",
		"<|endoftext|> stays ordinary text here",
		"  indented\r\n\ttabs, émigré naïve 日本語 ─── 🤖",
	} {
		if g, w := got.EncodeOrdinary(s), want.EncodeOrdinary(s); !slices.Equal(g, w) {
			t.Errorf("EncodeOrdinary(%q) = %v, cl100k_base says %v", s, g, w)
		}
	}
	got = nil
	runtime.GC()
	runtime.GC()
	if encWeak.Value() != nil {
		t.Error("the encoder outlived its last user")
	}
	if CountTokens("one two three") != 3 {
		t.Error("the encoder did not load again after it was freed")
	}
}
