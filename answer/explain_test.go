package answer

import (
	"slices"
	"strings"
	"testing"

	"github.com/textbook-rag/rag/internal/testbook"
)

// Selections of the Explain book, as Markdown and as a reader copies them
// from the rendered page (no marks, other line breaks).
const (
	stampSelection    = "The stamp is when the data was captured, not when it was published. Subscribers compare the stamp with the clock to measure the latency of the channel."
	stampRendered     = "The stamp is when the data was captured, not when it\nwas published.  Subscribers compare the stamp with\nthe clock to measure the latency of the channel."
	itemsSelection    = "- **frame_id**: the coordinate frame the data is expressed in\n- **seq**: a counter that older messages used"
	itemsRendered     = "frame_id: the coordinate frame the data is expressed in\nseq: a counter that older messages used"
	headedSelection   = "## Headers\n\nEvery header has three fields:\n\n- **stamp**: when the data was captured by the driver\n- **frame_id**: the coordinate frame the data is expressed in"
	qosSelection2     = "**QoS** is the set of policies that decide how messages reach a subscriber. A reliable connection resends lost messages."
	absoluteSelection = "Absolute time is what the stamp records, measured when the data was captured."
	breadSelection    = "Bread rises when yeast ferments the sugar in the dough."
)

func explainAnswerer(t *testing.T) *Answerer {
	t.Helper()
	chunks, err := testbook.ExplainChunks()
	if err != nil {
		t.Fatal(err)
	}
	return newAnswerer(chunks)
}

func TestExplainSelection(t *testing.T) {
	ans := explainAnswerer(t)
	tests := []struct {
		name      string
		question  string
		selected  string
		leadIn    []string // the lead-in's passages, in order
		terms     []string // the defined terms, in any order
		first     string   // the term quoted first: the most informative
		last      string   // the term quoted last: one the selection defines itself
		sectionOf string   // the heading of the first lead-in passage
	}{
		{name: "mid-section", question: "What does this mean?", selected: stampSelection,
			leadIn:    []string{"A publisher never waits for its subscribers.", "Each message carries a header with a stamp."},
			terms:     []string{"Latency", "stamp"},
			sectionOf: "Publishing"},
		{name: "copied from the page", question: "Explain this", selected: stampRendered,
			leadIn: []string{"A publisher never waits for its subscribers.", "Each message carries a header with a stamp."},
			terms:  []string{"Latency", "stamp"}},
		{name: "inside a list", question: "Summarise this.", selected: itemsSelection,
			leadIn: []string{"Every header has three fields:"},
			terms:  []string{"Coordinate Frame"}},
		{name: "inside a list, copied from the page", question: "what does this mean", selected: itemsRendered,
			leadIn: []string{"Every header has three fields:"},
			terms:  []string{"Coordinate Frame"}},
		{name: "from its heading", question: "What does this mean?", selected: headedSelection,
			terms: []string{"Coordinate Frame", "stamp"}, last: "stamp"},
		{name: "its own definition last", question: "Explain this passage in simpler words.", selected: qosSelection2,
			terms: []string{"QoS"}, last: "QoS"},
		{name: "a word the book defines in another sense", question: "What does this mean?", selected: absoluteSelection,
			terms: []string{"stamp"}},
		{name: "the most informative first", question: "What does this mean?", selected: "A subscriber measures latency in the coordinate frame of its body.",
			terms: []string{"Latency", "Coordinate Frame"}, first: "Coordinate Frame"},
		{name: "nothing in the book", question: "What does this mean?", selected: breadSelection},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp, ok := ans.ExplainSelection(ans.Read(tt.question), tt.selected)
			if !ok {
				t.Fatalf("%q was not taken as pointing at the selection", tt.question)
			}
			var lead []string
			for _, p := range exp.LeadIn {
				lead = append(lead, p.Text)
				if p.Chunk == nil {
					t.Errorf("lead-in %q has no chunk, so no source", p.Text)
				}
			}
			if !slices.Equal(lead, tt.leadIn) {
				t.Errorf("lead-in %q, want %q", lead, tt.leadIn)
			}
			if tt.sectionOf != "" && len(exp.LeadIn) > 0 && exp.LeadIn[0].Heading.Text != tt.sectionOf {
				t.Errorf("lead-in under %q, want %q", exp.LeadIn[0].Heading.Text, tt.sectionOf)
			}
			var terms []string
			for _, d := range exp.Definitions {
				terms = append(terms, d.Term)
				if d.Passage.Chunk == nil {
					t.Errorf("definition of %q has no chunk, so no source", d.Term)
				}
				if strings.Contains(tt.selected, d.Passage.Text) {
					t.Errorf("definition of %q quotes the selection itself: %q", d.Term, d.Passage.Text)
				}
			}
			if len(terms) > maxDefinitions {
				t.Errorf("%d definitions, at most %d", len(terms), maxDefinitions)
			}
			if !slices.Equal(sorted(terms), sorted(tt.terms)) {
				t.Errorf("defined terms %q, want %q", terms, tt.terms)
			}
			if tt.first != "" && len(terms) > 0 && terms[0] != tt.first {
				t.Errorf("defined terms %q, want %q, the most informative, first", terms, tt.first)
			}
			if tt.last != "" && len(terms) > 0 && terms[len(terms)-1] != tt.last {
				t.Errorf("defined terms %q, want %q, which the selection defines itself, last", terms, tt.last)
			}
			if tt.leadIn == nil && tt.terms == nil && !exp.Empty() {
				t.Errorf("explanation %+v, want none", exp)
			}
		})
	}
}

// A question that asks something of the selection is not explained: the
// selection alone answers it, or it is refused.
func TestExplainSelectionOnlyPointers(t *testing.T) {
	ans := explainAnswerer(t)
	for _, q := range []string{"When was the data captured?", "What does the stamp mean?", "Explain latency", "What does QoS stand for here?"} {
		if _, ok := ans.ExplainSelection(ans.Read(q), stampSelection); ok {
			t.Errorf("%q asks something of the selection, but was explained", q)
		}
	}
}

func TestPlainWords(t *testing.T) {
	tests := []struct{ md, rendered string }{
		{"A **topic** is a [named channel](/ros/topics#x) {#topic}.", "A topic is a named channel."},
		{"![diagram](img/a.png)\n\n- `RELIABLE`: resend", "RELIABLE: resend"},
		{"<Tip>Use a <b>fast</b> loop.</Tip>", "Use a fast loop."},
		{"```xml\n<joint name=\"a\"/>\n```", "<joint name=\"a\"/>"},
		{"### Why Blocks?[[why-blocks]]", "Why Blocks?"},
		{"Look:\n\n```zsh title=\"Code\"\ngit diff\n```", "Look:\nCode\ngit diff"},
		{"1. **Slow**: one trial\n2. **Costly**: one robot", "Slow: one trial\nCostly: one robot"},
		{"1. **Slow**: one trial\n2. **Costly**: one robot", "1. Slow: one trial\n2. Costly: one robot"},
	}
	for _, tt := range tests {
		if got, want := plainWords(tt.md), plainWords(tt.rendered); !slices.Equal(got, want) {
			t.Errorf("plainWords(%q) = %q, want %q as for %q", tt.md, got, want, tt.rendered)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
