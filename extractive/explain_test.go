package extractive

import (
	"context"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

// TestGenerateExplanation renders a selection that a question only
// points at with what the book adds to it: after the selection, the
// lead-in and each definition under a line saying where it comes from
// (a glossary's entry by its chapter), the other sections that discuss
// it; or NothingMore alone, never the selection alone.
func TestGenerateExplanation(t *testing.T) {
	topics := &rag.ScoredChunk{Chunk: rag.Chunk{ID: "1", ChapterTitle: "Topics", SectionHeading: "Headers"}}
	imu := &rag.ScoredChunk{Chunk: rag.Chunk{ID: "2", ChapterTitle: "Sensors", SectionHeading: "IMU"}}
	glossary := &rag.ScoredChunk{Chunk: rag.Chunk{ID: "3", ChapterTitle: "Glossary", SectionHeading: "Glossary"}}
	selection := []rag.Passage{{Text: "The stamp is when the data was captured.", Paragraph: 1}, {Text: "It drifts with the clock.", Paragraph: 1}}
	tests := []struct {
		name        string
		explanation *rag.Explanation
	}{
		{"selection explained", &rag.Explanation{
			LeadIn: []rag.Passage{
				{Text: "Every message carries a header.", Heading: rag.Heading{Text: "Headers"}, Chunk: topics, Paragraph: 2},
				{Text: "The header has three fields:", Heading: rag.Heading{Text: "Headers"}, Chunk: topics, Paragraph: 3},
			},
			Definitions: []rag.Definition{
				{Term: "Latency", Passage: rag.Passage{Text: "The time between a reading and the action it causes.", Heading: rag.Heading{Text: "Latency"}, Chunk: glossary, Paragraph: 1}},
				{Term: "Bias", Passage: rag.Passage{Text: "- **Bias**: constant offset that drifts slowly", Heading: rag.Heading{Text: "Error sources"}, Chunk: imu}},
			},
		}},
		{"selection and nothing more", &rag.Explanation{}},
		{"related sections", &rag.Explanation{Related: []rag.Passage{
			{Heading: rag.Heading{Text: "Headers"}, Chunk: topics},
			{Heading: rag.Heading{Text: "IMU"}, Chunk: imu},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var streamed string
			req := rag.GenerateRequest{Question: "What does this mean?", SelectedText: "x", Evidence: selection, Explanation: tt.explanation}
			out, err := Generator{}.Generate(context.Background(), req, func(d string) error {
				streamed += d
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if streamed != out.Text {
				t.Errorf("streamed text %q differs from the answer %q", streamed, out.Text)
			}
			// Never the selection alone: with what the book adds, or the
			// sentence saying it adds nothing, without the selection.
			if tt.explanation.Empty() && out.Text != NothingMore {
				t.Errorf("nothing to add: answer %q, want %q alone", out.Text, NothingMore)
			}
			if !tt.explanation.Empty() && !strings.HasPrefix(out.Text, "From your selection:") {
				t.Errorf("answer %q does not start with the selection it explains", out.Text)
			}
			checkGolden(t, out.Text)
		})
	}
}

// TestExplanationEchoesALead: an explanation repeats only a short lead
// of the selection (the reader has it before them): the first
// paragraph's sentences within maxEchoWords, nothing of a first sentence
// longer than that, never a code block or a later paragraph.
func TestExplanationEchoesALead(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("A pump moves water through the filter ", 6)) + "."
	exp := &rag.Explanation{Related: []rag.Passage{{Heading: rag.Heading{Text: "Filters"},
		Chunk: &rag.ScoredChunk{Chunk: rag.Chunk{ID: "9", ChapterTitle: "Ponds", SectionHeading: "Filters"}}}}}
	tests := []struct {
		name      string
		selection []rag.Passage
		want      string // the answer's part before the explanation
	}{
		{"first sentences", []rag.Passage{
			{Text: "The pump runs all day.", Paragraph: 1},
			{Text: "It stops when the float drops.", Paragraph: 1},
			{Text: "A second paragraph says more.", Paragraph: 2},
		}, "From your selection:\n\nThe pump runs all day. It stops when the float drops."},
		{"a long first sentence", []rag.Passage{{Text: long, Paragraph: 1}}, ""},
		{"code", []rag.Passage{{Text: "```sh\npond start\n```", Paragraph: 1}}, ""},
	}
	for _, tt := range tests {
		req := rag.GenerateRequest{Question: "What does this mean?", SelectedText: "x", Evidence: tt.selection, Explanation: exp}
		out, err := Generator{}.Generate(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		lead, _, _ := strings.Cut(out.Text, RelatedTitle)
		if got := strings.TrimSpace(lead); got != tt.want {
			t.Errorf("%s: echoed %q, want %q", tt.name, got, tt.want)
		}
	}
}
