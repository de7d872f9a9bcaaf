package count

import "testing"

func TestOf(t *testing.T) {
	tests := []struct {
		n    int
		noun string
		want string
	}{
		{0, "question", "0 questions"},
		{1, "question", "1 question"},
		{2, "question", "2 questions"},
		{1, "chunk", "1 chunk"},
		{1016, "chunk", "1016 chunks"},
		{-1, "refusal", "-1 refusals"},
	}
	for _, tt := range tests {
		if got := Of(tt.n, tt.noun); got != tt.want {
			t.Errorf("Of(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
}
