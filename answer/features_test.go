package answer

import (
	"testing"

	"github.com/textbook-rag/rag/analysis"
	"github.com/textbook-rag/rag/internal/testbook"
)

func TestNamesUnknown(t *testing.T) {
	ans := New(analysis.NewBook(testbook.Chunks))
	tests := []struct {
		q    string
		want bool
	}{
		{"How do I configure AMCL on a saved map?", true},
		{"What does static_transform_publisher do?", true},
		{"What is a Hidden Markov Model?", true},
		{"Which VLP16 settings matter?", true},
		{"What is a topic?", false},
		{"How does a LiDAR measure distance?", false},
		{"How do I create the gripper service client with create_client?", false},
		{"Why does my robot drift?", false},
		{"Robots: why do they drift?", false},
	}
	for _, tt := range tests {
		if got := ans.namesUnknown(tt.q); got != tt.want {
			t.Errorf("namesUnknown(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}
