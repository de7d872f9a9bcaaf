package answer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

func TestAsksReader(t *testing.T) {
	tests := []struct {
		name, text, heading string
		kind                unitKind
		want                bool
	}{
		{"statement", "A topic is a named channel.", "Topics", sentence, false},
		{"question", "Why does the robot drift?", "Topics", sentence, true},
		{"bold question", "**What happens when the link fails?**", "Topics", sentence, true},
		{"option", "B) To optimise audio quality", "Questions", item, true},
		{"numbered option", "3. D) All of the above", "Review", item, true},
		{"quiz section", "The answer is 42.", "Chapter Quiz", sentence, true},
		{"exercise section", "Add a second subscriber.", "Practice Exercise", sentence, true},
		{"row with a question cell", "| **Reliability** | `RELIABLE` | Must every message arrive? |", "QoS Policies", row, false},
		{"best practices", "Keep callbacks short.", "Best Practices", sentence, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := asksReader(&unit{text: tt.text, kind: tt.kind}, tt.heading); got != tt.want {
				t.Errorf("asksReader(%q under %q) = %v, want %v", tt.text, tt.heading, got, tt.want)
			}
		})
	}
}

func TestAsksForList(t *testing.T) {
	tests := []struct {
		q    string
		want bool
	}{
		{"Which physics engines does Gazebo support?", true},
		{"What joint types can a URDF joint have?", true},
		{"What kinds of sensors does a humanoid carry?", true},
		{"List the QoS policies.", true},
		{"In ROS 2, which policies decide delivery?", true},
		{"What is a topic?", false},
		{"Which is faster, a topic or a service?", false},
		{"How do I create a publisher?", false},
	}
	for _, tt := range tests {
		if got := asksForList(tt.q); got != tt.want {
			t.Errorf("asksForList(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

// The answer quotes the matching passage's section: the sentence that
// finishes a two-part answer, and a short list whole with its lead-in.
func TestEvidenceQuotesTheSection(t *testing.T) {
	c := rag.Chunk{ID: "walk", ChapterPath: "ros/nodes", ChapterTitle: "Nodes", SectionHeading: "Why Node Communication Matters",
		Text: "[Section: Why Node Communication Matters]\n\n" +
			"Imagine coordinating a humanoid's walk cycle. The gait planner generates desired foot positions 10 times per second.\n\n" +
			"The balance controller reads the IMU at 100 Hz. The motor controllers need commands at 1000 Hz.\n\n" +
			"Each part runs as its own node:\n\n- gait planner\n- balance controller\n- motor controllers",
		Headings: []rag.Heading{{Level: 2, Text: "Why Node Communication Matters", Anchor: "why"}}}
	ans := newAnswerer([]rag.Chunk{c})
	q := "How often does the gait planner put out foot positions, and at what rate do the motor controllers want commands?"
	ev := ans.Evidence(t.Context(), ans.Read(q), []rag.ScoredChunk{{Chunk: c, Score: 0.9}})
	var all []string
	for _, p := range ev {
		all = append(all, p.Text)
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{"10 times per second", "1000 Hz"} {
		if !strings.Contains(text, want) {
			t.Errorf("evidence lacks %q:\n%s", want, text)
		}
	}
}

// Asked for several things of a kind, a section that introduces them and
// goes on in sub-sections lists its sub-sections' headings.
func TestEvidenceListsSubsections(t *testing.T) {
	c := rag.Chunk{ID: "engines", ChapterPath: "sim/basics", ChapterTitle: "Simulation", SectionHeading: "Physics Engine Comparison",
		Text: "[Section: Physics Engine Comparison]\n\n## Physics Engine Comparison\n\nGazebo supports multiple physics engines. Each has different strengths.\n\n" +
			"### ODE\n\nThe default: fast, adequate contacts.\n\n### Bullet\n\nGood for many objects.\n\n### DART\n\nAccurate articulated bodies.",
		Headings: []rag.Heading{{Level: 2, Text: "Physics Engine Comparison", Anchor: "engines"}, {Level: 3, Text: "ODE", Anchor: "ode"},
			{Level: 3, Text: "Bullet", Anchor: "bullet"}, {Level: 3, Text: "DART", Anchor: "dart"}}}
	ans := newAnswerer([]rag.Chunk{c})
	ev := ans.Evidence(t.Context(), ans.Read("Which physics engines does Gazebo support?"), []rag.ScoredChunk{{Chunk: c, Score: 0.9}})
	var all []string
	for _, p := range ev {
		all = append(all, p.Text)
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{"supports multiple physics engines", "- ODE", "- Bullet", "- DART"} {
		if !strings.Contains(text, want) {
			t.Errorf("evidence lacks %q:\n%s", want, text)
		}
	}
}

// A passage is read in its chapter: the joint types table of the URDF
// chapter answers "what joint types can a URDF joint have?" though the
// table itself never says "URDF", and a line elsewhere that names all
// three words in passing does not.
func TestEvidenceReadsThePassageInItsChapter(t *testing.T) {
	table := rag.Chunk{ID: "joints", ChapterPath: "ros/urdf", ChapterTitle: "URDF Robot Description", SectionHeading: "Joints",
		Text: "[Chapter: URDF Robot Description]\n[Section: Joints]\n\n## Joints\n\nJoints define how links move relative to each other.\n\n### Joint Types\n\n" +
			"| Type | Motion | Example |\n|---|---|---|\n| `fixed` | No motion | Camera mount |\n| `revolute` | Rotation with limits | Elbow joint |\n| `prismatic` | Linear with limits | Linear actuator |",
		Headings: []rag.Heading{{Level: 2, Text: "Joints", Anchor: "joints"}, {Level: 3, Text: "Joint Types", Anchor: "joint-types"}}}
	other := rag.Chunk{ID: "import", ChapterPath: "sim/import", ChapterTitle: "Importing Robots", SectionHeading: "Import Settings",
		Text:     "[Chapter: Importing Robots]\n[Section: Import Settings]\n\nThe importer reads your URDF files.\n\n- Fix base link: yes\n- Joint drive type: position",
		Headings: []rag.Heading{{Level: 2, Text: "Import Settings", Anchor: "import"}}}
	ans := newAnswerer([]rag.Chunk{table, other})
	question := "What joint types can a URDF joint have?"
	chunks := []rag.ScoredChunk{{Chunk: other, Score: 0.9}, {Chunk: table, Score: 0.9}}
	_, units, cands := ans.prepare(t.Context(), ans.Read(question), chunks)
	best := ans.best(cands)
	if best == nil {
		t.Fatal("no candidate passage")
	}
	if u := units[best.w.from]; chunks[u.chunk].ID != "joints" || u.heading.Text != "Joint Types" {
		t.Errorf("best passage %q under %q, want the joint types table", u.text, u.heading.Text)
	}
}

// A list item is quoted with what it holds, and a lead-in right after
// the window with what it introduces, even when the section is too long
// to quote whole.
func TestQuoteFinishesItemsAndLeadIns(t *testing.T) {
	filler := strings.Repeat("Simulation settings change how stable a humanoid stands in the world. ", 25)
	text := "[Section: Practices]\n\n## Practices\n\n" + filler + "\n\n" +
		"1.  **Degrees of freedom**: more joints, more dynamics.\n" +
		"    *   **Best practice**: check the inertial properties.\n" +
		"2.  **Contact stability**: stable foot-ground contact is crucial.\n" +
		"    *   **Best practice**:\n" +
		"        *   Tune the contact parameters `ode_kp` and `ode_kd`.\n" +
		"        *   Keep `max_step_size` small.\n\n" +
		"    The default solver handles most cases.\n\n" +
		"3.  **Cost**: simulations are expensive.\n\n" +
		"The manipulator equation reads:\n\n```\nM(q)q'' + C(q,q')q' = tau\n```\n\nWhere:\n\n- **C(q,q')**: Coriolis terms\n\n" + filler
	units := splitUnits(rag.Chunk{Text: text, SectionHeading: "Practices"})
	find := func(prefix string) int {
		for i, u := range units {
			if strings.HasPrefix(u.text, prefix) {
				return i
			}
		}
		t.Fatalf("no unit starts with %q", prefix)
		return -1
	}
	quoted := func(ws ...window) string {
		var b strings.Builder
		for _, u := range quoteSections(units, ws) {
			b.WriteString(u.text + "\n")
		}
		return b.String()
	}

	item := find("2.  **Contact")
	got := quoted(window{from: item, to: item + 1, score: 0.5})
	for _, want := range []string{"ode_kp", "max_step_size", "default solver"} {
		if !strings.Contains(got, want) {
			t.Errorf("the quote of item 2 lacks %q, which the item holds:\n%s", want, got)
		}
	}
	if strings.Contains(got, "inertial properties") && !strings.Contains(got, "Degrees of freedom") {
		t.Errorf("item 1's sub-item is quoted without item 1:\n%s", got)
	}

	formula := find("The manipulator equation")
	got = quoted(window{from: formula, to: formula + 2, score: 0.5})
	if !strings.Contains(got, "Coriolis") {
		t.Errorf("the lead-in after the window and its list are not quoted:\n%s", got)
	}
}

// A window in a long list brings the list's other items (their own
// lines), and a long section its opening paragraph with the list that
// paragraph announces.
func TestQuoteOpensSectionAndListsSiblings(t *testing.T) {
	filler := strings.Repeat("Each stage needs its own tests and its own review before the next one starts. ", 30)
	var steps strings.Builder
	for i, s := range []string{"Robot model", "Simulation", "Control", "Perception", "Locomotion", "System integration"} {
		fmt.Fprintf(&steps, "%d.  **%s**:\n    *   %s\n", i+1, s, filler[:200])
	}
	text := "[Section: Roadmap]\n\n## Roadmap\n\nBefore you start, you need to:\n\n- install the simulator\n- clone the starter workspace\n\n" +
		filler + "\n\nA roadmap might look like this:\n\n" + steps.String() + "\n" + filler
	units := splitUnits(rag.Chunk{Text: text, SectionHeading: "Roadmap"})
	at := -1
	for i, u := range units {
		if strings.HasPrefix(u.text, "A roadmap might") {
			at = i
		}
	}
	var b strings.Builder
	for _, u := range quoteSections(units, []window{{from: at, to: at + 1, score: 0.5}}) {
		b.WriteString(u.text + "\n")
	}
	got := b.String()
	for _, want := range []string{"6.  **System integration**", "Before you start", "clone the starter workspace"} {
		if !strings.Contains(got, want) {
			t.Errorf("the quote lacks %q:\n%s", want, got)
		}
	}
}

// Code fenced inside a list item is a code block of its own, its lines
// as written (not run on into the item's text), held by the item; and a
// chunk that opens on the tail of a code block (another chunk's
// overlap) quotes none of it, nor reads its closing fence as an
// opening one that would swallow the next section.
func TestCodeBlocksKeepTheirLinesAndBounds(t *testing.T) {
	text := "[Section: Score it]\n\n## Fit it\n\n" +
		"    0 1 1 0 0 1]\n    score: 0.74\n    ```\n\n" +
		"## Score it\n\nA score table counts the right and wrong guesses of each class.\n\n" +
		"1. Count them:\n   ```python\n   from tally import table\n   table(truth, guesses)\n   ```\n" +
		"2. Read the table:\n\n    ```output\n    [[9, 1],\n     [2, 8]]\n    ```\n"
	units := splitUnits(rag.Chunk{Text: text, SectionHeading: "Score it"})
	var codes []*unit
	for i, u := range units {
		if strings.Contains(u.text, "0 1 1 0") || strings.Contains(u.text, "score: 0.74") {
			t.Errorf("unit %d quotes the tail of the previous chunk's code: %q", i, u.text)
		}
		if u.heading.Text != "Score it" && u.heading.Text != "Fit it" {
			t.Errorf("unit %d has heading %q", i, u.heading.Text)
		}
		if strings.Contains(u.text, "score table") && u.heading.Text != "Score it" {
			t.Errorf("the Score it section's prose is under %q", u.heading.Text)
		}
		if u.kind == item && strings.Contains(u.text, "from tally") {
			t.Errorf("the item runs on into its code: %q", u.text)
		}
		if u.kind == code {
			codes = append(codes, u)
			if u.up == 0 {
				t.Errorf("code %q is not held by its list item", u.text)
			}
		}
	}
	want := []string{"```python\nfrom tally import table\ntable(truth, guesses)\n```", "```output\n[[9, 1],\n [2, 8]]\n```"}
	if len(codes) != len(want) {
		t.Fatalf("got %d code blocks, want %d: %+v", len(codes), len(want), codes)
	}
	for i, c := range codes {
		if c.text != want[i] {
			t.Errorf("code block %d = %q, want %q", i, c.text, want[i])
		}
	}
}

// A section whose long example comes before the sentence that answers
// is quoted with that sentence: its code does not use up the quote's
// budget before the prose that follows it.
func TestLongCodeDoesNotCrowdOutTheAnswer(t *testing.T) {
	var prog strings.Builder
	prog.WriteString("```js\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&prog, "counter.add(%d); // one more step of the example\n", i)
	}
	prog.WriteString("```")
	text := "[Section: Grouped updates]\n\n## Grouped updates\n\n" +
		"You might expect each call to add to the counter to redraw the page at once:\n\n" + prog.String() + "\n\n" +
		strings.Repeat("The page keeps its old value while the handler runs. ", 6) + "\n\n" +
		"Waiting for the handler to finish before redrawing is called grouping, and it keeps the page fast.\n"
	units := splitUnits(rag.Chunk{Text: text, SectionHeading: "Grouped updates"})
	if n := blockChars(units, func() []int {
		var all []int
		for i := range units {
			all = append(all, i)
		}
		return all
	}()); n <= quoteBudget {
		t.Fatalf("the fixture's section has %d characters, within the budget of %d: it tests nothing", n, quoteBudget)
	}
	var b strings.Builder
	for _, u := range quoteSections(units, []window{{from: 0, to: 1, score: 0.5}}) {
		b.WriteString(u.text + "\n")
	}
	if !strings.Contains(b.String(), "is called grouping") {
		t.Errorf("the quote stops before the sentence that answers:\n%s", b.String())
	}
}

// Code is quoted whole, as the page shows it: a ````md block holding
// ``` examples is one block, and code fenced inside a blockquote is a
// block of its own lines, not a sentence of the quote.
func TestCodeUnitsWhole(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // the units' texts, in order
	}{
		{"nested fences", "Write equations so:\n\n````md\n```{math}\na + b\n```\n\n```{math}\nc\n```\n````\n\nThen build.",
			[]string{"Write equations so:", "````md\n```{math}\na + b\n```\n\n```{math}\nc\n```\n````", "Then build."}},
		{"code in a blockquote", "> NOTE: Run both commands.\n>\n> ```sh\n> make build\n>   make test\n> ```\n\nDone.",
			[]string{"NOTE: Run both commands.", "```sh\nmake build\n  make test\n```", "Done."}},
		{"a chunk that ````{r} opens and ``` closes", "````r\nnrow(x)\n```\n\nThen count the rows.",
			[]string{"````r\nnrow(x)\n```", "Then count the rows."}},
		{"a quote that ends before its fence closes", "> ```sh\n> make\n\nDone.",
			[]string{"```sh\nmake", "Done."}},
	}
	for _, tt := range tests {
		var got []string
		for _, u := range splitUnits(rag.Chunk{Text: tt.text, SectionHeading: "Build"}) {
			got = append(got, u.text)
		}
		if strings.Join(got, "\n|\n") != strings.Join(tt.want, "\n|\n") {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
