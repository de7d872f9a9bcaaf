package answer

import (
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

func TestPointsOnly(t *testing.T) {
	tests := []struct {
		name, text, heading string
		kind                unitKind
		want                bool
	}{
		{"link item", "- [When should I use a message queue?](https://example.org/faq#queue)", "When to queue", item, true},
		{"link item with a note", "* [Queue guide](https://example.org/guide) (video)", "When to queue", item, true},
		{"reference link", "- [Queue guide][guide]", "When to queue", item, true},
		{"pointer sentence", "See [the queue FAQ](https://example.org/faq).", "When to queue", sentence, true},
		{"bare address", "- <https://example.org/queues>", "When to queue", item, true},
		{"item that explains", "- [Queues](https://example.org/q) keep jobs in order until a worker is free", "When to queue", item, false},
		{"sentence with a link", "A queue keeps jobs in [arrival order](https://example.org/order) until a worker is free.", "When to queue", sentence, false},
		{"plain item", "- Use a queue when jobs arrive faster than workers finish them.", "When to queue", item, false},
		{"figure beside a link", "- [Benchmark](https://example.org/b) 40 ms", "When to queue", item, false},
		{"further reading section", "The first chapter of the queueing book is a gentle start.", "Further reading", sentence, true},
		{"see also section", "- Workers", "See also", item, true},
		{"references heading", "- Smith, Queues, 1999.", "References", item, true},
		{"heading that only starts alike", "A reference counts users of an object.", "References and pointers", sentence, false},
		{"code is never a pointer", "```\nhttps://example.org\n```", "When to queue", code, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pointsOnly(&unit{text: tt.text, kind: tt.kind}, tt.heading); got != tt.want {
				t.Errorf("pointsOnly(%q under %q) = %v, want %v", tt.text, tt.heading, got, tt.want)
			}
		})
	}
}

// A section that closes on a list of links, one of them the question
// word for word, is answered from its prose: the links are no candidate.
func TestClosingLinksAreNoAnswer(t *testing.T) {
	c := rag.Chunk{ID: "q", ChapterPath: "guide/queues", ChapterTitle: "Queues", SectionHeading: "When should I use a message queue?",
		Text: "[Section: When should I use a message queue?]\n\n## When should I use a message queue?\n\n" +
			"Use a queue when jobs arrive faster than the workers can finish them, or when a job may wait without harm. " +
			"A queue also lets a worker fail and restart without losing the jobs it had not started.\n\n" +
			"Not every program needs one: a program whose jobs finish at once gains nothing from a queue.\n\n" +
			"For more on when to use a queue, read:\n\n" +
			"- [When should I use a message queue?](https://example.org/faq#when-queue)\n" +
			"- [Queues in practice](https://example.org/blog/queues)\n" +
			"- [Should I use a queue or a stream?](https://example.org/faq#stream)\n",
		Headings: []rag.Heading{{Level: 2, Text: "When should I use a message queue?", Anchor: "when"}}}
	ans := newAnswerer([]rag.Chunk{c})
	chunks := []rag.ScoredChunk{{Chunk: c, Score: 0.9}}
	_, units, cands := ans.prepare(t.Context(), ans.Read("When should I use a message queue?"), chunks)
	if len(cands) == 0 {
		t.Fatal("no candidates")
	}
	for _, cd := range cands {
		for _, u := range units[cd.w.from:cd.w.to] {
			if u.points {
				t.Errorf("a candidate window holds the link %q", u.text)
			}
		}
	}
	ev := ans.Evidence(t.Context(), ans.Read("When should I use a message queue?"), chunks)
	if len(ev) == 0 || !strings.Contains(ev[0].Text, "jobs arrive faster") {
		t.Errorf("the answer does not open on the section's prose: %+v", ev)
	}
}
