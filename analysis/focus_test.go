package analysis

import (
	"testing"

	"github.com/textbook-rag/rag/internal/testbook"
)

func TestFocusWeighsTheNextStep(t *testing.T) {
	ix := NewBook(testbook.Chunks)
	tests := []struct {
		question string
		lowered  []string // stems whose weight drops
		kept     []string // stems whose weight stays
	}{
		{"After creating the client, how does the service send its response?", []string{"creat", "client"}, []string{"respons", "servic"}},
		{"Once the topic exists, which reliability policy resends messages?", []string{"topic", "exist"}, []string{"reliabl", "polici"}},
		{"How do I create a client for a service?", nil, []string{"creat", "client", "servic"}},
		{"After a client, the client calls what?", nil, []string{"client"}},
		{"My gripper works great on the bench. Which service opens the gripper?", []string{"bench"}, []string{"servic", "gripper"}},
		{"The gripper opens. Is that a service. Or a topic", nil, []string{"gripper", "servic", "topic"}},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			q := ix.Analyze(tt.question)
			f := Focus(q, tt.question)
			weight := func(q Query, stem string) float64 {
				for _, term := range q.Terms {
					if term.Stem == stem {
						return term.Weight
					}
				}
				t.Fatalf("no term %q in %q", stem, tt.question)
				return 0
			}
			for _, s := range tt.lowered {
				if got, was := weight(f, s), weight(q, s); got >= was {
					t.Errorf("%s: weight %.2f, want below %.2f", s, got, was)
				}
			}
			for _, s := range tt.kept {
				if got, was := weight(f, s), weight(q, s); got != was {
					t.Errorf("%s: weight %.2f, want %.2f", s, got, was)
				}
			}
			var total float64
			for _, term := range f.Terms {
				total += term.Weight
			}
			if d := total - f.Total; d > 1e-9 || d < -1e-9 {
				t.Errorf("total %.3f, want the sum of the weights %.3f", f.Total, total)
			}
		})
	}
}
