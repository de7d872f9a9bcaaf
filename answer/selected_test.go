package answer

import (
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

// A selection as Markdown: two paragraphs, a list under its lead-in, a
// table and a code block, eleven units.
const qosSelection = `A **topic** is a named channel that carries messages. Publishers never wait for subscribers.

The reliability policy decides whether lost messages are sent again:
- ` + "`RELIABLE`" + `: resend until the subscriber has it
- ` + "`BEST_EFFORT`" + `: send once and move on

| Policy | Use |
|---|---|
| Reliable | commands |
| Best effort | camera images |

Durability decides what a late subscriber gets. Volatile sends it nothing old.

` + "```bash\nros2 topic info /imu --verbose\n```"

func TestSelectedEvidenceTable(t *testing.T) {
	ans := newAnswerer(testChunks)
	sel := "An IMU measures acceleration.\n\nFriction by floor:\n\n| Floor | mu |\n|---|---|\n| Tile | 0.3 |\n| Wood | 0.5 |"
	ps := ans.SelectedEvidence(ans.Read("Which mu does a wood floor have?"), sel)
	var got []string
	for _, p := range ps {
		got = append(got, p.Text)
	}
	want := []string{"Friction by floor:", "| Floor | mu |\n|---|---|\n| Tile | 0.3 |", "| Floor | mu |\n|---|---|\n| Wood | 0.5 |"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("quoted %q, want the table whole with its lead-in, without the paragraph before", got)
	}
}

func TestSelectedEvidenceWholeSelection(t *testing.T) {
	ans := newAnswerer(testChunks)
	all := len(splitUnits(rag.Chunk{Text: qosSelection}))
	for _, q := range []string{"What does this mean?", "Explain this passage in simpler words.", "explain", "Summarise this.", "what does this part say?"} {
		t.Run(q, func(t *testing.T) {
			ps := ans.SelectedEvidence(ans.Read(q), qosSelection)
			if len(ps) != all {
				t.Fatalf("%d passages, want the whole selection (%d)", len(ps), all)
			}
			if ps[0].Paragraph != 1 || ps[1].Paragraph != 1 || ps[2].Paragraph != 2 {
				t.Errorf("paragraphs %d %d %d, want 1 1 2", ps[0].Paragraph, ps[1].Paragraph, ps[2].Paragraph)
			}
		})
	}
}

func TestSelectedEvidenceAnswersThePart(t *testing.T) {
	ans := newAnswerer(testChunks)
	tests := []struct {
		name string
		q    string
		want []string // in the answer
		not  []string // left out: the selection's parts that do not answer
	}{
		{
			name: "a list with its lead-in",
			q:    "Which reliability policy resends lost messages?",
			want: []string{"reliability policy decides", "RELIABLE", "BEST_EFFORT"},
			not:  []string{"named channel", "ros2 topic info"},
		},
		{
			name: "a paragraph at the end",
			q:    "What does durability give a late subscriber?",
			want: []string{"Durability decides", "Volatile sends"},
			not:  []string{"named channel", "RELIABLE"},
		},
		{
			name: "words pointing at the selection do not count",
			q:    "In this passage, what does durability give a late subscriber?",
			want: []string{"Durability decides"},
			not:  []string{"named channel"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := ans.SelectedEvidence(ans.Read(tt.q), qosSelection)
			if len(ps) == 0 {
				t.Fatal("the selection holds the answer but was judged insufficient")
			}
			var text []string
			for _, p := range ps {
				text = append(text, p.Text)
			}
			got := strings.Join(text, "\n")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("answer lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(got, w) {
					t.Errorf("answer quotes %q, which does not answer:\n%s", w, got)
				}
			}
		})
	}
}

func TestWithoutPointers(t *testing.T) {
	ans := newAnswerer(testChunks)
	tests := map[string][]string{
		"What does this mean?":                           nil,
		"Explain the reliability policy in this passage": {"reliabl", "polici"},
		"What does 16-bit mean in this sentence?":        {"16-bit", "16", "bit"},
	}
	for question, want := range tests {
		var got []string
		for _, term := range ans.withoutPointers(ans.Read(question)).Terms {
			got = append(got, term.Stem)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%q: terms %q, want %q", question, got, want)
		}
	}
}

func TestSelectedEvidenceInsufficient(t *testing.T) {
	ans := newAnswerer(testChunks)
	for _, q := range []string{
		"How does a LiDAR measure distance?",
		"What does this passage say about LiDAR range?",
	} {
		if ps := ans.SelectedEvidence(ans.Read(q), qosSelection); len(ps) != 0 {
			t.Errorf("%q: the selection does not answer, but %q was quoted", q, ps[0].Text)
		}
	}
}

func TestReaderLines(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "a ````md block holding ``` examples keeps its lines",
			in:   "Write it so:\n\n````md\n```{math}\nA.\nB.\n```\n\n```{math}\nC.\nD.\n```\n````\nAfter **it**.\nMore.",
			want: "Write it so:\n\n````md\n```{math}\nA.\nB.\n```\n\n```{math}\nC.\nD.\n```\n````\nAfter **it**.\n\nMore.",
		},
		{
			name: "lines copied from a rendered list",
			in:   "Types:\nDC motors\nServo motors",
			want: "Types:\n\nDC motors\n\nServo motors",
		},
		{
			name: "sentence per line",
			in:   "Motors turn.\nGears reduce speed.",
			want: "Motors turn.\n\nGears reduce speed.",
		},
		{
			name: "lines of code copied from a rendered page",
			in:   "Start the node:\nros2 run demo talker\nros2 topic list",
			want: "Start the node:\n\nros2 run demo talker\n\nros2 topic list",
		},
		{
			name: "a wrapped line in Markdown stays in its sentence",
			in:   "A **motor** converts electrical energy\ninto motion.",
			want: "A **motor** converts electrical energy\ninto motion.",
		},
		{
			name: "Markdown keeps its own structure",
			in:   "Types:\n- DC motors\n  with brushes\n- Servo motors\n\n| a | b |\n|---|---|\n| 1 | 2 |",
			want: "Types:\n- DC motors\n  with brushes\n- Servo motors\n\n| a | b |\n|---|---|\n| 1 | 2 |",
		},
		{
			name: "code is left as it is",
			in:   "```text\nFirst line.\nSecond line.\n```",
			want: "```text\nFirst line.\nSecond line.\n```",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readerLines(tt.in); got != tt.want {
				t.Errorf("readerLines(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSelectedEvidenceKeepsReaderLines(t *testing.T) {
	ans := newAnswerer(testChunks)
	// As a browser copies a rendered page: no list markers, one line each.
	sel := "Reliability settings:\nReliable resends lost messages\nBest effort sends once"
	ps := ans.SelectedEvidence(ans.Read("What does this mean?"), sel)
	if len(ps) != 3 {
		t.Fatalf("%d passages, want the three lines the reader saw", len(ps))
	}
	for i := 1; i < len(ps); i++ {
		if ps[i].Paragraph == ps[i-1].Paragraph {
			t.Errorf("lines %d and %d run together: %q, %q", i, i+1, ps[i-1].Text, ps[i].Text)
		}
	}
}
