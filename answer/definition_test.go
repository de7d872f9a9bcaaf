package answer

import (
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

func TestDefinitionEntries(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"one entry", []string{"Selector", ": A function that picks a part of the state."}, []string{"Selector\n: A function that picks a part of the state."}},
		{"two entries, one paragraph", []string{"Selector", ": Picks a part.", "Thunk", ": Delays a call.", "It runs later."},
			[]string{"Selector\n: Picks a part.", "Thunk\n: Delays a call.\nIt runs later."}},
		{"a sentence then a colon line", []string{"The store holds the state.", ": not a term"}, nil},
		{"prose", []string{"A store holds the state", "of the whole app."}, nil},
		{"one line", []string{"Selector"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := definitionEntries(tt.lines)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || (got == nil) != (tt.want == nil) {
				t.Errorf("definitionEntries(%q) = %q, want %q", tt.lines, got, tt.want)
			}
		})
	}
}

// A glossary's entry (headed by its term, even where a type signature
// opens it), a definition list's entry and a row of a table of terms
// answer "what is X?" where the model is unsure; a term none of them
// lists is not answered from them.
func TestGlossaryAndDefinitionListEntriesAnswer(t *testing.T) {
	chunks := []rag.Chunk{
		{ID: "gl", ChapterPath: "understanding/glossary", ChapterTitle: "Glossary", SectionHeading: "Glossary",
			Text: "[Section: Glossary]\n\nThis page lists the terms the guide uses.\n\n## Reducer\n\n```ts\ntype Reducer<S, A> = (state: S, action: A) => S\n```\n\n" +
				"A _reducer_ (also called a _folding function_) takes the state so far and an action, and returns the next state.\n\n## Store\n\nA store holds the app's state tree.",
			Headings: []rag.Heading{{Level: 2, Text: "Reducer", Anchor: "reducer"}, {Level: 2, Text: "Store", Anchor: "store"}}},
		{ID: "dl", ChapterPath: "guide/words", ChapterTitle: "Words of the trade", SectionHeading: "Words of the trade",
			Text: "[Section: Words of the trade]\n\nSelector\n: Picks a part of the state and derives data from it.\n\nThunk\n: Wraps an expression to delay its evaluation until it is needed.\n\n" +
				"| Term | Meaning |\n|---|---|\n| Slice | The part of the state that one reducer owns and updates. |",
			Headings: []rag.Heading{{Level: 2, Text: "Words of the trade", Anchor: "words"}}},
		{ID: "use", ChapterPath: "guide/state", ChapterTitle: "Managing state", SectionHeading: "Updating state",
			Text:     "[Section: Updating state]\n\nEach reducer, selector, slice and thunk in the app touches the store. Write a reducer per slice and test each selector.",
			Headings: []rag.Heading{{Level: 2, Text: "Updating state", Anchor: "updating"}}},
	}
	ans := newAnswerer(chunks)
	unsure := ZeroModel()
	unsure.Threshold = 0.99
	ans.SetModel(unsure)
	all := []rag.ScoredChunk{{Chunk: chunks[2], Score: 0.9}, {Chunk: chunks[0], Score: 0.8}, {Chunk: chunks[1], Score: 0.7}}
	tests := []struct{ q, want string }{
		{"What is a reducer?", "returns the next state"},
		{"What is a selector?", "derives data"},
		{"What is a thunk?", "delay its evaluation"},
		{"What is a slice?", "one reducer owns"},
		{"What is a dispatcher?", ""},
	}
	for _, tt := range tests {
		ps := ans.Evidence(t.Context(), ans.Read(tt.q), all)
		var text []string
		for _, p := range ps {
			text = append(text, p.Text)
		}
		got := strings.Join(text, "\n")
		switch {
		case tt.want == "" && len(ps) > 0:
			t.Errorf("%q: answered %q, want a refusal", tt.q, got)
		case tt.want != "" && !strings.Contains(got, tt.want):
			t.Errorf("%q: quoted %q, want the entry stating %q", tt.q, got, tt.want)
		}
	}
}
