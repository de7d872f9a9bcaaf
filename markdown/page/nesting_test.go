package page

import (
	"strings"
	"testing"
)

func TestLimitNesting(t *testing.T) {
	deep := MaxNesting + 5
	keep := strings.Repeat("> ", MaxNesting)
	tests := []struct {
		name, in, want string
		line           int
	}{
		{"shallow", "> > quote\n- a\n  - b\n[link](x)\n", "", 0},
		{"blockquotes", "# T\n\n" + strings.Repeat("> ", deep) + "deep text\n", "# T\n\n" + keep + "deep text\n", 3},
		{"tight blockquotes", strings.Repeat(">", deep) + " x\n", strings.Repeat(">", MaxNesting) + " x\n", 1},
		{"lists", strings.Repeat("- ", deep) + "item\n", strings.Repeat("- ", MaxNesting) + "item\n", 1},
		{"ordered and mixed", strings.Repeat("> 1. ", deep) + "x\n", strings.Repeat("> 1. ", MaxNesting/2) + "x\n", 1},
		{"brackets", strings.Repeat("[a](", deep) + "\n\n(after)\n",
			strings.Repeat("[a](", MaxNesting) + strings.Repeat(`\[a]\(`, deep-MaxNesting) + "\n\n(after)\n", 1},
		{"escaped and code", strings.Repeat(`\[`, deep) + "`" + strings.Repeat("(", deep) + "`\n", "", 0},
		{"fenced code", "```\n" + strings.Repeat("> ", deep) + "\n```\n", "", 0},
		{"after the fence", "```\nx\n```\n" + strings.Repeat("- ", deep) + "y\n", "```\nx\n```\n" + strings.Repeat("- ", MaxNesting) + "y\n", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, line := LimitNesting([]byte(tc.in))
			want := tc.want
			if want == "" {
				want = tc.in
			}
			if string(got) != want || line != tc.line {
				t.Errorf("LimitNesting(%q)\n = %q, line %d\nwant %q, line %d", tc.in, got, line, want, tc.line)
			}
		})
	}
}
