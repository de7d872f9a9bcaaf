package markdown

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/textbook-rag/rag/markdown/page"
)

// A paragraph beyond any real book's (over wholeTextBlocks chunk budgets)
// is cut into chunks within the maximum, whatever it holds: sentences,
// one endless sentence, or a run without spaces (R5-chunk-bound: a 2.1 MB
// paragraph becomes at least 262 chunks). Its text is all kept, in order.
func TestLongParagraphChunksWithinMax(t *testing.T) {
	var sentences strings.Builder
	for i := 0; sentences.Len() < 2_100_000; i++ {
		fmt.Fprintf(&sentences, "Gear %d turns the wheel of the cart. ", i)
	}
	long := sentences.String()
	tests := []struct {
		name, para string
		min        int
	}{
		{"sentences, 2.1 MB", strings.TrimSpace(long), 262},
		{"one sentence of words", strings.Repeat("gear wheel axle ", 20_000), 10},
		{"a run without spaces", strings.Repeat("gearwheelaxle", 20_000), 10},
		{"a run of wide characters", strings.Repeat("歯車", 50_000), 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			book := fstest.MapFS{"a.md": {Data: []byte("# A\n\n## Long\n\n" + tc.para + "\n\n## After\n\nThe end of the page.\n")}}
			o := DefaultOptions()
			_, chunks := load(t, book, o)
			if len(chunks) < tc.min {
				t.Errorf("%d chunks, want at least %d", len(chunks), tc.min)
			}
			biggest := 0
			for _, c := range chunks {
				biggest = max(biggest, page.CountTokens(c.Text))
			}
			t.Logf("%d chunks, the largest of %d tokens", len(chunks), biggest)
			if biggest > o.MaxTokens {
				t.Errorf("a chunk of %d tokens, over the maximum %d", biggest, o.MaxTokens)
			}
			last := tc.para[len(tc.para)-24:]
			if !strings.Contains(chunks[len(chunks)-2].Text+chunks[len(chunks)-1].Text, last) {
				t.Errorf("the paragraph's end %q is not in its last chunks", last)
			}
		})
	}
}
