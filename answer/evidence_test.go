package answer

import (
	"math"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
	"github.com/textbook-rag/rag/internal/testbook"
	"github.com/textbook-rag/rag/tutor"
)

var _ tutor.EvidenceFinder = (*Answerer)(nil)

// testChunks is a small book written for these tests.
var testChunks = testbook.Chunks

// newAnswerer builds the answerer of a book of chunks.
func newAnswerer(chunks []rag.Chunk) *Answerer { return New(analysis.NewBook(chunks)) }

// TestEvidence checks what the answerer quotes: the most probable
// passage, whose text and heading must be the answer's. Whether that
// passage clears the threshold depends on the fitted weights, so the
// answerable cases read the best candidate; the cases the book cannot
// answer must come back empty.
func TestEvidence(t *testing.T) {
	ans := newAnswerer(testChunks)
	all := make([]rag.ScoredChunk, len(testChunks))
	for i, c := range testChunks {
		all[i] = rag.ScoredChunk{Chunk: c, Score: 0.9}
	}
	tests := []struct {
		name    string
		q       string
		want    []string // substrings of the answer
		heading string
		none    bool
	}{
		{name: "definition", q: "What is a topic?", want: []string{"named channel"}, heading: "Topics"},
		{name: "sub-section", q: "What does the BEST_EFFORT reliability setting do?", want: []string{"send once"}, heading: "Quality of Service"},
		{name: "table row", q: "How much does a navigation grade IMU cost?", want: []string{"$10,000"}, heading: "Inertial Measurement Units"},
		{name: "code after its lead-in", q: "How do I create the gripper service client?", want: []string{"create_client"}, heading: "Services"},
		{name: "date the book does not give", q: "In what year was the LiDAR invented?", none: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := ans.Evidence(t.Context(), ans.Read(tt.q), all)
			if !tt.none {
				r, units, cands := ans.prepare(t.Context(), ans.Read(tt.q), all)
				if best := ans.best(cands); best != nil {
					ps = ans.quote(units, all, windowsOf(cands, best.section), r.wantsList)
				}
			}
			if tt.none {
				if len(ps) != 0 {
					t.Fatalf("found evidence %q, want none", ps[0].Text)
				}
				return
			}
			if len(ps) == 0 {
				t.Fatal("no evidence")
			}
			var text []string
			for _, p := range ps {
				text = append(text, p.Text)
				if p.Chunk == nil {
					t.Error("passage without its chunk")
				}
			}
			joined := strings.Join(text, "\n")
			for _, w := range tt.want {
				if !strings.Contains(joined, w) {
					t.Errorf("evidence %q lacks %q", joined, w)
				}
			}
			if ps[0].Heading.Text != tt.heading {
				t.Errorf("heading = %q, want %q", ps[0].Heading.Text, tt.heading)
			}
		})
	}
}

// A selection that holds the answer scores above one that shares a word
// with the question or none, and SelectedEvidence answers from it exactly
// when its score reaches the model's fitted threshold.
func TestSelectedEvidence(t *testing.T) {
	ans := newAnswerer(testChunks)
	sel := "- **stamp**: when the data was captured (not when it was published)\n- **frame_id**: the coordinate frame of the data"
	q := "Is the stamp the time the message was published?"
	holds, ps := ans.SelectionScore(ans.Read(q), sel)
	if holds <= 0 || len(ps) == 0 || !strings.Contains(ps[0].Text, "captured") {
		t.Fatalf("the selection holds the answer but scores %v with %d passages", holds, len(ps))
	}
	if other, _ := ans.SelectionScore(ans.Read("How does a LiDAR measure distance?"), sel); other >= holds {
		t.Errorf("a selection that says nothing about LiDAR scores %v, the answering one %v", other, holds)
	}
	if shared, ps := ans.SelectionScore(ans.Read("What frame is the data in?"), "The data."); shared != 0 || ps != nil {
		t.Errorf("a shared word was taken as an answer: score %v", shared)
	}
	m := *ans.model
	m.SelectedThreshold = holds
	ans.SetModel(&m)
	if len(ans.SelectedEvidence(ans.Read(q), sel)) == 0 {
		t.Error("a selection scoring the threshold was judged insufficient")
	}
	m.SelectedThreshold = math.Nextafter(holds, 2)
	if ps := ans.SelectedEvidence(ans.Read(q), sel); len(ps) != 0 {
		t.Error("a selection scoring below the threshold was answered from")
	}
}

func TestTopic(t *testing.T) {
	ans := newAnswerer(testChunks)
	tests := map[string]string{
		"What is a good recipe for banana bread?": "banana bread",
		"Who won the 2022 FIFA World Cup final?":  "2022 FIFA World Cup final",
		"what is it?":                             "",
	}
	for q, want := range tests {
		if got := ans.Topic(ans.Read(q)); got != want {
			t.Errorf("Topic(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestAnswerType(t *testing.T) {
	tests := map[string]bool{
		"How much does a Velodyne VLP-16 cost?":     true,
		"When does ROS 2 Humble reach end of life?": true,
		"When should I pick Gazebo over Unity?":     false,
		"What is a topic?":                          false,
	}
	for q, want := range tests {
		if got := answerTypeOf(analysis.Tokenize(q)) != nil; got != want {
			t.Errorf("answerTypeOf(%q) set = %v, want %v", q, got, want)
		}
	}
}
