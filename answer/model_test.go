package answer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

// The embedded model must weigh exactly the features the answerer
// computes; a stale one (features changed, no refit) would refuse every
// question.
func TestEmbeddedModelFits(t *testing.T) {
	if err := EmbeddedModelError(); err != nil {
		t.Fatalf("%v (run: go run ./cmd/textbook-rag fit --books ../shared/eval/books.tsv)", err)
	}
	m := DefaultModel()
	if m.Threshold <= 0 || m.Threshold >= 1 {
		t.Errorf("threshold %v", m.Threshold)
	}
}

func TestFeaturesAreDocumented(t *testing.T) {
	seen := map[string]bool{}
	for i, f := range Features {
		if f.Name == "" || f.Doc == "" {
			t.Errorf("feature %d has no name or doc", i)
		}
		if seen[f.Name] {
			t.Errorf("feature %q twice", f.Name)
		}
		seen[f.Name] = true
	}
}

func TestParseModelRejectsStaleModels(t *testing.T) {
	good := ZeroModel()
	tests := map[string]func(m *Model){
		"missing feature": func(m *Model) { m.Features = m.Features[1:] },
		"renamed feature": func(m *Model) { m.Features[0] = "old_name" },
		"zero scale":      func(m *Model) { m.Scale[2] = 0 },
		"threshold":       func(m *Model) { m.Threshold = 1.5 },
	}
	for name, spoil := range tests {
		t.Run(name, func(t *testing.T) {
			m := *good
			m.Features = append([]string(nil), good.Features...)
			m.Scale = append([]float64(nil), good.Scale...)
			spoil(&m)
			data, _ := json.Marshal(m)
			if _, err := ParseModel(data); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	data, _ := json.Marshal(good)
	if _, err := ParseModel(data); err != nil {
		t.Fatalf("zero model: %v", err)
	}
}

// The model decides whether to answer: the same chunks are quoted under a
// threshold every candidate clears and refused under one none can.
func TestThresholdDecides(t *testing.T) {
	ans := newAnswerer(testChunks)
	all := []rag.ScoredChunk{{Chunk: testChunks[0], Score: 0.9}, {Chunk: testChunks[1], Score: 0.8}}
	q := "What is a topic?"
	open := ZeroModel()
	open.Threshold = 0
	ans.SetModel(open)
	ps := ans.Evidence(t.Context(), ans.Read(q), all)
	if len(ps) == 0 || !strings.Contains(ps[0].Text, "topic") {
		t.Fatalf("threshold 0: %v", ps)
	}
	closed := ZeroModel()
	closed.Threshold = 1
	ans.SetModel(closed)
	if ps := ans.Evidence(t.Context(), ans.Read(q), all); len(ps) != 0 {
		t.Fatalf("threshold 1 quoted %q", ps[0].Text)
	}
}

func TestCandidatesCarryFeaturesAndQuotes(t *testing.T) {
	ans := newAnswerer(testChunks)
	all := []rag.ScoredChunk{{Chunk: testChunks[2], Score: 0.9}, {Chunk: testChunks[3], Score: 0.75}}
	cands := ans.Candidates(t.Context(), ans.Read("How much does a navigation grade IMU cost?"), all)
	if len(cands) == 0 {
		t.Fatal("no candidates")
	}
	sawPrice := false
	for _, c := range cands {
		if len(c.Features) != len(Features) {
			t.Fatalf("%d features, want %d", len(c.Features), len(Features))
		}
		if len(c.Passages) == 0 {
			t.Fatal("a candidate quotes nothing")
		}
		for _, p := range c.Passages {
			if strings.Contains(p.Text, "$10,000") && c.Features[fTypeYes] == 1 {
				sawPrice = true
			}
		}
	}
	if !sawPrice {
		t.Error("no candidate quotes the price row with answer_type_stated")
	}
}

// Where the model is unsure, the book's own marked definition answers a
// question that asks what that term is; it answers nothing else.
func TestDefinitionAnswersWhereTheModelIsUnsure(t *testing.T) {
	ans := newAnswerer(testChunks)
	all := []rag.ScoredChunk{{Chunk: testChunks[0], Score: 0.9}, {Chunk: testChunks[1], Score: 0.8}}
	unsure := ZeroModel()
	unsure.Threshold = 0.99
	ans.SetModel(unsure)
	tests := []struct {
		q    string
		want bool
	}{
		{"What is a topic?", true},
		{"whats a topic in this book?", true},
		{"What is a ROS 2 topic?", false}, // nothing around the definition says ROS 2
		{"In the topics chapter, what is a topic?", true},
		{"What is a topic, and who publishes to it?", false},
		{"What is the difference between a topic and a service?", false},
		{"How do publishers use a topic?", false},
		{"What is a service?", false}, // the book describes services but marks no definition
	}
	for _, tt := range tests {
		ps := ans.Evidence(t.Context(), ans.Read(tt.q), all)
		if got := len(ps) > 0; got != tt.want {
			t.Errorf("%q: answered %v, want %v", tt.q, got, tt.want)
		}
		if tt.want && len(ps) > 0 && !strings.Contains(ps[0].Text, "named channel") {
			t.Errorf("%q: quoted %q, want the definition", tt.q, ps[0].Text)
		}
	}
}

// A glossary's entry is headed by its term: where the model is unsure,
// it answers "what is X?" as a marked definition does.
func TestGlossaryEntryAnswersWhereTheModelIsUnsure(t *testing.T) {
	chunks := []rag.Chunk{
		{ID: "g", ChapterPath: "glossary", ChapterTitle: "Glossary", SectionHeading: "Xacro", Text: "### Xacro\n\nAn XML macro language extending URDF.\n\n### Yaw\n\nRotation about the vertical axis."},
		{ID: "c", ChapterPath: "setup", ChapterTitle: "Robot setup", SectionHeading: "Sensor Xacros", Text: "## Sensor Xacros\n\nEach sensor is a xacro macro with a prefix."},
	}
	ans := newAnswerer(chunks)
	unsure := ZeroModel()
	unsure.Threshold = 0.99
	ans.SetModel(unsure)
	all := []rag.ScoredChunk{{Chunk: chunks[1], Score: 0.9}, {Chunk: chunks[0], Score: 0.8}}
	ps := ans.Evidence(t.Context(), ans.Read("What is xacro?"), all)
	if len(ps) == 0 || !strings.Contains(ps[0].Text, "XML macro language") {
		t.Errorf("what is xacro: quoted %+v, want the glossary entry", ps)
	}
	if ps := ans.Evidence(t.Context(), ans.Read("What is a sensor xacro for?"), all); len(ps) != 0 {
		t.Errorf("a question about another term was answered from the glossary: %+v", ps)
	}
}

// docs/answerer.md lists every feature the answerer computes, by name.
func TestFeaturesDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "answerer.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Features {
		if !strings.Contains(string(doc), "`"+f.Name+"`") {
			t.Errorf("docs/answerer.md does not list the feature %q", f.Name)
		}
	}
}
