package tutor

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
	"github.com/textbook-rag/rag/answer"
	"github.com/textbook-rag/rag/extractive"
	"github.com/textbook-rag/rag/internal/testbook"
	"github.com/textbook-rag/rag/lexical"
	"github.com/textbook-rag/rag/markdown"
	"github.com/textbook-rag/rag/sample"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Selections of the Explain book (internal/testbook).
const (
	stampSelection = "The stamp is when the data was captured, not when it was published. Subscribers compare the stamp with the clock to measure the latency of the channel."
	breadSelection = "Bread rises when yeast ferments the sugar in the dough."
)

// bookTutor is the tutor of the Explain book with the book's own
// answerer and the extractive generator: no language model.
func bookTutor(t *testing.T) *Tutor {
	t.Helper()
	chunks, err := testbook.ExplainChunks()
	if err != nil {
		t.Fatal(err)
	}
	return chunksTutor(chunks)
}

// sampleTutor is the tutor of the bundled sample book, with no language
// model.
func sampleTutor(t *testing.T) *Tutor {
	t.Helper()
	_, chunks, err := markdown.Load(t.Context(), sample.Docs(), markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return chunksTutor(chunks)
}

// chunksTutor is the tutor of a book's chunks with the book's own
// answerer and the extractive generator.
func chunksTutor(chunks []rag.Chunk) *Tutor {
	book := analysis.NewBook(chunks)
	return &Tutor{
		Config:     DefaultConfig(),
		Retriever:  lexical.New(book),
		Evidence:   answer.New(book),
		Scope:      DefaultScope(),
		Extractive: extractive.Generator{},
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// TestExplainSelection: a question that only points at the selection is
// answered with the selection and what the book adds to it from
// elsewhere, with its sources, or, when the book adds nothing, with a
// sentence saying so, never with the selection alone; a selection with
// no word in it is refused; a question that asks something of the
// selection is answered, or refused, as before.
func TestExplainSelection(t *testing.T) {
	tests := []struct {
		name     string
		question string
		selected string
		golden   string   // the answer's text, in testdata
		has      []string // text the answer holds
		sources  []string // the sources' section headings
		refuse   bool
	}{
		{name: "what does this mean", question: "What does this mean?", selected: stampSelection, golden: "explain_stamp.golden",
			has:     []string{"Each message carries a header with a stamp.", "The time between a sensor reading and the action that it causes."},
			sources: []string{"Publishing", "Latency", "Headers"}},
		{name: "explain this", question: "Explain this", selected: stampSelection,
			has: []string{"Just before your selection", "The book defines “Latency”"}, sources: []string{"Publishing", "Latency", "Headers"}},
		{name: "the book says nothing more", question: "Summarise this.", selected: breadSelection, golden: "explain_nothing_more.golden",
			has: []string{extractive.NothingMore}},
		{name: "a question the selection answers", question: "What do subscribers compare the stamp with?", selected: stampSelection,
			has: []string{"compare the stamp with the clock"}},
		{name: "a question the selection does not answer", question: "How far can a LiDAR see?", selected: stampSelection, refuse: true},
		{name: "a passage other sections discuss", question: "What does this mean?", selected: "messages reach a subscriber over channels",
			has: []string{extractive.RelatedTitle, "- “Delivery” (Topics)", "- “Publishing” (Topics)"}, sources: []string{"Delivery", "Publishing"}},
		{name: "a junk selection", question: "What does this mean?", selected: "[[[[[[[[[[[[[[[[", refuse: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tu := bookTutor(t)
			var stream readerStream
			resp, err := tu.Ask(context.Background(), rag.ChatRequest{Question: tt.question, SelectedText: tt.selected, SessionID: "s"}, &stream)
			if err != nil {
				t.Fatal(err)
			}
			if tt.refuse {
				if !resp.WasRefusal || *resp.RefusalReason != rag.SelectedTextInsufficient {
					t.Fatalf("answered %q, want selected_text_insufficient", resp.Answer)
				}
				return
			}
			if resp.WasRefusal {
				t.Fatalf("refused: %s", *resp.RefusalReason)
			}
			if stream.text != resp.Answer {
				t.Errorf("streamed %q, answered %q", stream.text, resp.Answer)
			}
			// Never the selection alone: the selection and what the book
			// adds, or the sentence saying it adds nothing.
			if tt.sources != nil && !strings.HasPrefix(resp.Answer, "From your selection:\n\n") {
				t.Errorf("answer %q does not start with the selection it explains", resp.Answer)
			}
			if tt.sources == nil && tt.golden != "" && resp.Answer != extractive.NothingMore {
				t.Errorf("nothing to add: answer %q, want %q alone", resp.Answer, extractive.NothingMore)
			}
			for _, h := range tt.has {
				if !strings.Contains(resp.Answer, h) {
					t.Errorf("answer lacks %q:\n%s", h, resp.Answer)
				}
			}
			explained := strings.Contains(resp.Answer, extractive.NothingMore) || len(resp.Sources) > 0
			if pointing := tt.sources != nil || tt.golden != ""; explained != pointing {
				t.Errorf("explained = %v, want %v:\n%s", explained, pointing, resp.Answer)
			}
			var got []string
			for _, s := range resp.Sources {
				got = append(got, s.SectionHeading)
				if s.ChunkID == "" || s.Path == "" {
					t.Errorf("source %+v does not point into the book", s)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.sources, "|") {
				t.Errorf("sources %q, want %q", got, tt.sources)
			}
			if tt.golden != "" {
				checkGolden(t, tt.golden, resp.Answer)
			}
		})
	}
}

// recordingLLM answers with fixed text, or text the tutor rejects, and
// keeps what it was asked.
type recordingLLM struct {
	text string
	got  rag.GenerateRequest
}

func (g *recordingLLM) Generate(ctx context.Context, req rag.GenerateRequest, emit func(string) error) (rag.Generated, error) {
	g.got = req
	return rag.Generated{Text: g.text, Finish: rag.FinishStop}, nil
}

// With a language model the model explains from the selection, as
// before, and its answer cites nothing; when its text is rejected, the
// extractive answer stands in, explanation and sources included.
func TestExplainSelectionWithLLM(t *testing.T) {
	tests := []struct {
		name, reply, want string
		sources           int
	}{
		{name: "accepted", reply: "It says when the data was captured.", want: "It says when the data was captured."},
		{name: "rejected", reply: "", want: "Just before your selection", sources: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tu := bookTutor(t)
			llm := &recordingLLM{text: tt.reply}
			tu.LLM = llm
			resp, err := tu.Ask(context.Background(), rag.ChatRequest{Question: "What does this mean?", SelectedText: stampSelection, SessionID: "s"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if llm.got.SelectedText != stampSelection || len(llm.got.Context) != 0 {
				t.Errorf("the model was asked from %q and %d chunks, want the selection alone", llm.got.SelectedText, len(llm.got.Context))
			}
			if resp.WasRefusal || !strings.Contains(resp.Answer, tt.want) {
				t.Errorf("answer %q, want it to hold %q", resp.Answer, tt.want)
			}
			if len(resp.Sources) != tt.sources {
				t.Errorf("%d sources, want %d", len(resp.Sources), tt.sources)
			}
		})
	}
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("answer =\n%s\nwant\n%s", got, want)
	}
}

// TestExplainSampleBook asks "What does this mean?" of plain paragraphs
// of the sample book. Each gets the book's definition of a term it uses,
// the sentences it follows, or links to the sections that develop its
// idea; or, when the book has nothing more, the sentence that says so
// alone. No answer links a section that only shares a word or two with
// the paragraph (the stopping paragraph once linked LiDAR and Wheel
// Encoders), and none is the selection with nothing after it.
func TestExplainSampleBook(t *testing.T) {
	tests := []struct {
		name     string
		selected string
		has      []string // parts of the answer
		lacks    []string // sections that do not develop the idea
		nothing  bool     // the book has nothing more
	}{
		{name: "a term its chapter defined",
			selected: "**System identification** measures the real robot to make the model match it: weigh the links, record how the motors respond to steps, measure the floor's friction. Each measured value replaces a guess, which narrows the gap before any randomization is needed.",
			has: []string{extractive.DefinitionTitle + "“reality gap” in “The Reality Gap” (From Simulation to Reality):", "The **reality gap** is the difference",
				extractive.RelatedTitle, "- “Domain Randomization” (From Simulation to Reality)", "- “Validating on Hardware” (From Simulation to Reality)"}},
		{name: "a paragraph after the list it goes on about",
			selected: "Stopping a physical robot takes time. A mobile base driving at 1 m/s needs some distance to brake, so a server should only report `canceled()` once the motors have actually come to rest.",
			has:      []string{extractive.LeadInTitle + "“Actions” (Services and Actions):", "`canceled()` when the client asked to stop", "- “Choosing Between Topics, Services and Actions”"},
			lacks:    []string{"LiDAR", "Wheel Encoders", "`abort()`"}},
		{name: "developed in other sections",
			selected: "To know its heading, a robot integrates the gyroscope's angular velocity over time. Any constant error, called **bias**, is integrated too and grows without limit. A bias of only 0.02 °/s becomes 72° of heading error after one hour. This is **drift**, and it is why a robot cannot navigate on its IMU alone: it must correct the estimate with an absolute reference such as a compass, a map or visual landmarks.",
			has:      []string{extractive.RelatedTitle, "- “Inertial Measurement Units” (Robot Sensors)", "- “Comparing Sensors” (Robot Sensors)"},
			lacks:    []string{"LiDAR", "Real-Time Deadlines"}},
		{name: "a limit of the idea its section developed",
			selected: "Randomization has limits. It cannot fix a phenomenon the simulator does not model at all: if the simulated gearbox has no backlash, randomizing other parameters will not prepare the controller for it.",
			has:      []string{extractive.LeadInTitle + "“Domain Randomization”", "- “The Reality Gap”", "- “System Identification”"},
			lacks:    []string{"Review Questions"}},
		{name: "a paragraph the sentence before defines",
			selected: "A service has a server, which does the work, and any number of clients. Unlike a topic, a service call is addressed to whoever serves it and always gets an answer, even if the answer is \"failed\".",
			has:      []string{extractive.LeadInTitle + "“Services” (Services and Actions):", "A **service** is a request–response exchange"}},
		{name: "nothing more in the book",
			selected: "The `wait_for_service` loop keeps the node from sending requests into the void while the server is still starting.",
			nothing:  true},
		{name: "a closing line, nothing more",
			selected: "The next module moves from software architecture to simulation: testing all of this before a real robot is involved.",
			nothing:  true},
	}
	tu := sampleTutor(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := tu.Ask(t.Context(), rag.ChatRequest{Question: "What does this mean?", SelectedText: tt.selected, SessionID: "s"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.WasRefusal {
				t.Fatalf("refused: %s", *resp.RefusalReason)
			}
			if tt.nothing {
				if resp.Answer != extractive.NothingMore || len(resp.Sources) != 0 {
					t.Fatalf("answer %q with %d sources, want %q alone", resp.Answer, len(resp.Sources), extractive.NothingMore)
				}
				return
			}
			rest, ok := strings.CutPrefix(resp.Answer, "From your selection:\n\n")
			if !ok || !strings.Contains(rest, extractive.LeadInTitle) && !strings.Contains(rest, extractive.DefinitionTitle) && !strings.Contains(rest, extractive.RelatedTitle) {
				t.Fatalf("answer is the selection with nothing the book adds:\n%s", resp.Answer)
			}
			if len(resp.Sources) == 0 {
				t.Errorf("what the book adds has no source:\n%s", resp.Answer)
			}
			for _, h := range tt.has {
				if !strings.Contains(resp.Answer, h) {
					t.Errorf("answer lacks %q:\n%s", h, resp.Answer)
				}
			}
			for _, l := range tt.lacks {
				if strings.Contains(rest, l) {
					t.Errorf("answer names %q, which does not develop the paragraph:\n%s", l, resp.Answer)
				}
			}
		})
	}
}
