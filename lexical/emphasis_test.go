package lexical

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// emphasisPattern is what emphasized reads, as a pattern: the reference.
var emphasisPattern = regexp.MustCompile(`\*\*([^*\n]{1,60})\*\*|__([^_\n]{1,60})__|(?:^|[\s(])\*([^*\s][^*\n]{0,58})\*`)

func byPattern(s string) []string {
	var out []string
	for _, m := range emphasisPattern.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1]+m[2]+m[3])
	}
	return out
}

func byScan(s string) []string {
	var out []string
	emphasized(s, func(t string) { out = append(out, t) })
	return out
}

func TestEmphasized(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"A **topic** is a named *channel* (*bus*) of __SLAM__.", []string{"topic", "channel", "bus", "SLAM"}},
		{"*start* of text, not mid*word*, nor * spaced*", []string{"start"}},
		{"**" + strings.Repeat("é", 60) + "** and **" + strings.Repeat("a", 61) + "**", []string{strings.Repeat("é", 60)}},
		{"**a\nb** ****", []string{" "}},
	}
	for _, tt := range tests {
		if got := byScan(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("emphasized(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// The scan finds what the pattern finds, on texts made of the characters
// that matter (markers, spaces, brackets, line ends, wide and invalid
// UTF-8) and of runs around the length limits.
func TestEmphasizedIsThePattern(t *testing.T) {
	parts := []string{"*", "**", "_", "__", " ", "\t", "\n", "(", "a", "word", "é", "\xff", strings.Repeat("x", 57), strings.Repeat("y", 59), strings.Repeat("ü", 60)}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		if got, want := byScan(s), byPattern(s); !slices.Equal(got, want) {
			t.Fatalf("on %q: scan %q, pattern %q", s, got, want)
		}
	}
}
