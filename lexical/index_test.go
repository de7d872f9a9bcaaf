package lexical

import (
	"context"
	"testing"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
	"github.com/textbook-rag/rag/internal/testbook"
)

// testChunks is a small book written for these tests.
var testChunks = testbook.Chunks

// newIndex builds the retriever of a book of chunks.
func newIndex(chunks []rag.Chunk) *Index { return New(analysis.NewBook(chunks)) }

func TestRetrieveScores(t *testing.T) {
	ix := newIndex(testChunks)
	tests := []struct {
		name    string
		q       string
		top     string
		atLeast float64
		below   float64
	}{
		{name: "answerable", q: "What is a topic?", top: "topics", atLeast: 0.7},
		{name: "misspelt", q: "what is a toppic in ros", top: "topics", atLeast: 0.5},
		{name: "off domain", q: "What is a good recipe for banana bread?", below: 0.5},
		{name: "no subject words", q: "what is it?", below: 0.01},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ix.Retrieve(context.Background(), tt.q, 3)
			if err != nil {
				t.Fatal(err)
			}
			best := 0.0
			if len(res) > 0 {
				best = res[0].Score
			}
			for _, r := range res {
				if r.Score < 0 || r.Score > 1 {
					t.Errorf("score %v outside [0, 1]", r.Score)
				}
			}
			if tt.top != "" && (len(res) == 0 || res[0].ID != tt.top) {
				t.Errorf("top chunk = %v, want %s", res, tt.top)
			}
			if tt.atLeast > 0 && best < tt.atLeast {
				t.Errorf("best score %.2f < %.2f", best, tt.atLeast)
			}
			if tt.below > 0 && best >= tt.below {
				t.Errorf("best score %.2f >= %.2f", best, tt.below)
			}
		})
	}
}

func TestRepairNeverAnswersOffDomain(t *testing.T) {
	ix := newIndex(testbook.Repair)
	tests := []struct {
		name     string
		q        string
		answered bool
	}{
		{name: "film question", q: "Who directed the movie Inception?"},
		{name: "real word one edit from a book word", q: "What is a deposition in a court case?"},
		{name: "typo of a book word", q: "How do I read a joint positon from the encoder?", answered: true},
		{name: "typo in a procedure", q: "What should I calibrte before tuning stiffness?", answered: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ix.Retrieve(context.Background(), tt.q, 3)
			if err != nil {
				t.Fatal(err)
			}
			best := 0.0
			if len(res) > 0 {
				best = res[0].Score
			}
			if answered := best >= 0.7; answered != tt.answered {
				t.Errorf("best score %.2f: answered = %v, want %v (terms: %s)", best, answered, tt.answered, ix.Explain(tt.q))
			}
		})
	}
}

// A chapter whose every chunk uses the question's words: the scores must
// still tell its chunks apart, in the order they are returned, and a
// chunk's rank alone must not push it under the confident line.
func TestScoresDiscriminate(t *testing.T) {
	chunk := func(id, heading, body string) rag.Chunk {
		return rag.Chunk{ID: id, ChapterPath: "sensors/fusion", ChapterTitle: "Sensor Fusion", SectionHeading: heading,
			Text: "[Chapter: Sensor Fusion]\n[Section: " + heading + "]\n\n" + body}
	}
	ix := newIndex([]rag.Chunk{
		chunk("what", "What Is Sensor Fusion?", "Sensor fusion combines data from multiple sensors to reduce uncertainty. Fusion weighs each sensor by its noise."),
		chunk("example", "Example Node", "The node subscribes to the camera and the IMU and publishes a fused pose."),
		chunk("summary", "Summary", "Sensor fusion makes perception reliable."),
		chunk("filters", "Kalman Filters", "A Kalman filter fuses a prediction with a sensor measurement."),
		chunk("other", "Cameras", "A camera measures light; it sees no depth without a second view."),
	})
	res, err := ix.Retrieve(context.Background(), "what is sensor fusion", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) < 3 || res[0].ID != "what" {
		t.Fatalf("top chunk %v, want the section headed with the question", res)
	}
	top := 0
	for i, r := range res {
		if i > 0 && r.Score > res[i-1].Score {
			t.Errorf("scores out of order: %v", res)
		}
		if r.Score == res[0].Score {
			top++
		}
	}
	if top > 1 {
		t.Errorf("%d chunks tie at the top score %.3f: %v", top, res[0].Score, res)
	}
	for _, r := range res {
		if r.ID == "summary" && r.Score < confidentLine {
			t.Errorf("summary holds every question word but scored %.3f, under the confident line", r.Score)
		}
	}
}

// A chunk that sets the question's term in bold or italics (a glossary
// entry, a definition) is about it, as one that names it in a heading:
// among chunks that use the term as often, it ranks first.
func TestEmphasisRanksLikeAHeading(t *testing.T) {
	chunks := []rag.Chunk{
		{ID: "plain", ChapterPath: "a", SectionHeading: "Teaching", Text: "Scaffolding helps learners. Teachers remove scaffolding over time."},
		{ID: "bold", ChapterPath: "b", SectionHeading: "Glossary", Text: "**Scaffolding**: support that helps learners. Teachers remove it over time."},
		{ID: "italic", ChapterPath: "c", SectionHeading: "Terms", Text: "Learners need support. *Scaffolding* is support a teacher removes over time."},
		{ID: "other", ChapterPath: "d", SectionHeading: "Grading", Text: "Rubrics make grading fair and quick."},
	}
	ix := newIndex(chunks)
	res, err := ix.Retrieve(context.Background(), "What is scaffolding?", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) < 3 || res[2].ID != "plain" {
		t.Errorf("ranking %v, want the bold and the italic definitions before the plain mention", ids(res))
	}
}

func ids(res []rag.ScoredChunk) []string {
	var out []string
	for _, r := range res {
		out = append(out, r.ID)
	}
	return out
}
