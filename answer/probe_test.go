package answer

import (
	"reflect"
	"testing"

	"github.com/textbook-rag/rag"
)

// The self-check asks "What is X?" of every term the book defines in a
// sentence with the term in bold or italics; a bold label opening a list
// item, a note, a table row, an exercise's label and a bold question are
// not definitions.
// A section headed by the term answers it too, in the plural or with its
// name spelled out in brackets.
func TestDefinitionProbes(t *testing.T) {
	chunks := []rag.Chunk{
		{ID: "1", ChapterPath: "ros/topics", SectionHeading: "Topics", Text: "## Topics\n\nA **topic** is a named channel that carries messages.\n\n**Note**: topics are typed.\n\n- **Security**: ROS 2 encrypts its traffic.\n\n| **Drift** | slowly changing bias |\n|---|---|\n| x | y |"},
		{ID: "2", ChapterPath: "glossary", SectionHeading: "S", Text: "## S\n\n*Scaffolding*: support that a teacher removes once the learner copes alone.\n\nA node is one program."},
		{ID: "3", ChapterPath: "teaching/methods", SectionHeading: "Scaffolding", Text: "## Scaffolding\n\nTeachers build it up and take it down."},
		{ID: "4", ChapterPath: "vision/models", SectionHeading: "1. CLIP (Contrastive Language-Image Pre-training)", Text: "## 1. CLIP (Contrastive Language-Image Pre-training)\n\nIt pairs images with captions."},
		{ID: "5", ChapterPath: "glossary", SectionHeading: "C", Text: "## C\n\n**CLIP**: a model that pairs images with their captions.\n\n**Coordinate frame**: an origin and three axes that place a point."},
		{ID: "6", ChapterPath: "ros/frames", SectionHeading: "Coordinate Frames", Text: "## Coordinate Frames\n\nEvery link has one.\n\n**Why This Works?**: it weighs each sensor by how much it can be trusted."},
		{ID: "7", ChapterPath: "ros/exercises", ChapterTitle: "Exercises & Solutions", SectionHeading: "Task", Text: "## Task\n\n**Requirement**: the publisher must not know about the subscriber at all."},
	}
	ans := newAnswerer(chunks)
	got := ans.DefinitionProbes()
	want := []Probe{
		{Question: "What is topic?", Sections: []string{"ros/topics › Topics"}},
		{Question: "What is Scaffolding?", Sections: []string{"glossary › S", "teaching/methods › Scaffolding"}},
		{Question: "What is CLIP?", Sections: []string{"glossary › C", "vision/models › 1. CLIP (Contrastive Language-Image Pre-training)"}},
		{Question: "What is Coordinate frame?", Sections: []string{"glossary › C", "ros/frames › Coordinate Frames"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("probes\n got %+v\nwant %+v", got, want)
	}
}

// Sections of the same text (a chapter the book repeats in a variant)
// are one answer: their probabilities add up when the answerer picks.
func TestSameTextSectionsAreOneGroup(t *testing.T) {
	text := "## Nodes\n\nA **node** is an executable process that performs computation."
	chunks := []rag.Chunk{
		{ID: "a", ChapterPath: "intro", SectionHeading: "Nodes", Text: text},
		{ID: "b", ChapterPath: "intro-personalized", SectionHeading: "Nodes", Text: text},
		{ID: "c", ChapterPath: "graph", SectionHeading: "Graphs", Text: "## Graphs\n\nNodes talk over topics in a graph of processes."},
	}
	ans := newAnswerer(chunks)
	var all []rag.ScoredChunk
	for _, c := range chunks {
		all = append(all, rag.ScoredChunk{Chunk: c, Score: 0.9})
	}
	cands := ans.Candidates(t.Context(), ans.Read("What is a node?"), all)
	groups := map[string]string{}
	for _, c := range cands {
		groups[c.Section] = c.Group
	}
	if groups["intro › Nodes"] != groups["intro-personalized › Nodes"] {
		t.Errorf("same text, groups %q and %q", groups["intro › Nodes"], groups["intro-personalized › Nodes"])
	}
	if groups["graph › Graphs"] == groups["intro › Nodes"] {
		t.Error("another text joined the group")
	}
}
