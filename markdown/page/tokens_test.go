package page

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dlclark/regexp2"
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
	if got, want := CountTokens(prose), len(reference(t).EncodeOrdinary(prose)); got != want {
		t.Errorf("CountTokens(prose) = %d, cl100k says %d", got, want)
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

// reference is tiktoken-go's cl100k_base, which the counts are checked
// against.
func reference(tb testing.TB) *tiktoken.Tiktoken {
	tb.Helper()
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(tiktoken.MODEL_CL100K_BASE)
	if err != nil {
		tb.Fatal(err)
	}
	return enc
}

// tricky are texts where each alternative of cl100k's pattern, and each
// way a run of spaces can end, decides the cut.
var tricky = []string{
	"A robot senses, thinks and acts. It's the 1234th time we've done it!",
	"```python\nimport rclpy\nnode = rclpy.create_node('talker')  # 42\n```",
	"<|endoftext|> stays ordinary text here",
	"  indented\r\n\ttabs, émigré naïve 日本語 ─── 🤖",
	"'dog 'tame 'mist 'llama 'vex 'rex I'M SURE THEY'LL SAY 'TIS WE'D 'VE 'RE 'D 'd'll''s",
	"x  \n\n  y\t\t\nz   ", "   ", "\n", " \n ", "a \u00a0\u2028b\u3000 c\u0085d",
	"12345678 ١٢٣٤ ²³ ½ Ⅻ x1y22z333", " !!\n\n\r\n?? ...\t;; $5 -> --x",
	"e\u0301te cafe\u0301 \u0301a", "\xff\xfe bad \xc3 bytes\x80", "İstanbul \u212a 'İ 'ſ",
	"| a | b |\n|---|---|\n| 1 | 2 |\n", "- item\n- [link](x.md)\n  - nested\n",
}

// The counts are cl100k_base's (tiktoken-go's): for prose, code,
// special-token text, odd characters and spacing, and random mixes of
// them; and once nothing holds the ranks, a collection frees them and the
// next count loads them again.
func TestEncoderIsCL100K(t *testing.T) {
	want := reference(t)
	got, err := encoder()
	if err != nil {
		t.Fatal(err)
	}
	texts := slices.Clone(tricky)
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", "é", "日", "1", "٣", "'", "s", "LL", " ", "  ", "\t", "\n", "\r", "\u00a0", ".", "!?", "─", "🤖", "\u0301", "\xff", "ve", "Re", "d", "T", "m"}
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(20) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		if g, w := preTokens(s), cl100kPreTokens(t, s); !slices.Equal(g, w) {
			t.Errorf("pre-tokens of %q: %q, cl100k_base's pattern says %q", s, g, w)
		}
		if g, w := got.count(s), len(want.EncodeOrdinary(s)); g != w {
			t.Errorf("count(%q) = %d, cl100k_base says %d", s, g, w)
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

// cl100kPattern is cl100k_base's pre-tokeniser, as tiktoken-go has it.
const cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

var cl100kRegexp = regexp2.MustCompile(cl100kPattern, regexp2.None)

// cl100kPreTokens cuts s as tiktoken-go does, with the pattern and the
// regular expression engine it uses.
func cl100kPreTokens(tb testing.TB, s string) []string {
	tb.Helper()
	runes := []rune(s)
	var out []string
	m, err := cl100kRegexp.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = cl100kRegexp.FindNextMatch(m) {
		out = append(out, string(runes[m.Index:m.Index+m.Length]))
	}
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// preTokens cuts s with preToken.
func preTokens(s string) []string {
	s = string([]rune(s))
	var out []string
	for i := 0; i < len(s); {
		j := preToken(s, i)
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func FuzzCountIsCL100K(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	want := reference(f)
	f.Fuzz(func(t *testing.T, s string) {
		enc, err := encoder()
		if err != nil {
			t.Fatal(err)
		}
		if g, w := preTokens(s), cl100kPreTokens(t, s); !slices.Equal(g, w) {
			t.Errorf("pre-tokens of %q: %q, cl100k_base's pattern says %q", s, g, w)
		}
		if g, w := enc.count(s), len(want.EncodeOrdinary(s)); g != w {
			t.Errorf("count(%q) = %d, cl100k_base says %d", s, g, w)
		}
	})
}

// Counting is linear and cheap: about 2 MiB of book text a second, where
// tiktoken-go's regular expression took about one second a MiB.
func BenchmarkCountTokens(b *testing.B) {
	text := strings.Repeat("- A robot senses, thinks and acts; it's 1234 steps.\n", 40_000)
	CountTokens("load the encoding")
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		CountTokens(text)
	}
}
