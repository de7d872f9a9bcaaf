package lexical

import (
	"context"
	"testing"

	"github.com/textbook-rag/rag"
)

func TestEnglishWordList(t *testing.T) {
	words := englishWords()
	if words.len() < 50_000 {
		t.Fatalf("embedded word list holds %d words, want the whole of wamerican", words.len())
	}
	for i := 1; i < words.len(); i++ {
		if words.at(i-1) > words.at(i) {
			t.Fatalf("embedded word list is not sorted at %q: regenerate it with go generate ./lexical", words.at(i))
		}
	}
	tests := []struct {
		word string
		want bool
	}{
		{"inception", true},
		{"perception", true},
		{"movie", true},
		{"cook", true},
		{"real-life", true},
		{"positon", false},
		{"impedence", false},
		{"comand", false},
		{"calibrte", false},
		{"wich", false},
		{"ros2", false},
		{"robot's", false}, // possessives are left out; the tokenizer drops them
	}
	for _, tt := range tests {
		if got := isEnglishWord(tt.word); got != tt.want {
			t.Errorf("isEnglishWord(%q) = %v, want %v", tt.word, got, tt.want)
		}
	}
}

// A book whose vocabulary lies one or two edits from common words.
var repairChunks = []rag.Chunk{
	{ID: "perception", ChapterPath: "robot/perception", SectionHeading: "Perception", Text: "Perception turns camera images into a model of the world. Think of a movie studio: each camera films one part of the set and the director cuts them into one scene. Weak Wi-Fi reception delays the images."},
	{ID: "position", ChapterPath: "robot/position", SectionHeading: "Joint Position", Text: "An encoder reports the position of each joint. Send a command to move the joint to a new position. The encoder readout is sampled at 1 kHz."},
	{ID: "impedance", ChapterPath: "robot/impedance", SectionHeading: "Impedance Control", Text: "Impedance control makes a joint behave like a spring. Calibrate the sensors before you tune the stiffness."},
}

func TestSpellingRepair(t *testing.T) {
	ix := New(repairChunks)
	tests := []struct {
		word  string
		want  string // the book word it resolves to, or one with its stem
		known bool
	}{
		{word: "positon", want: "position", known: true},
		{word: "impedence", want: "impedance", known: true},
		{word: "comand", want: "command", known: true},
		{word: "calibrte", want: "calibrate", known: true},
		{word: "position", want: "position", known: true},
		// English words the book never uses stay as written and unknown.
		{word: "inception", want: "inception"},
		{word: "cook", want: "cook"},
		{word: "deposition", want: "deposition"},
		// Nor is a word whose first letter differs from the book word's.
		{word: "breakout", want: "breakout"},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			got := ix.resolve(token{word: tt.word, stem: stem(tt.word)})
			if len(got) != 1 {
				t.Fatalf("resolve(%q) = %d terms, want 1", tt.word, len(got))
			}
			if got[0].stem != stem(tt.want) || got[0].known != tt.known {
				t.Errorf("resolve(%q) = %q known=%v, want %q known=%v", tt.word, got[0].stem, got[0].known, stem(tt.want), tt.known)
			}
		})
	}
}

func TestRepairNeverAnswersOffDomain(t *testing.T) {
	ix := New(repairChunks)
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

func TestSpellingVariants(t *testing.T) {
	british := New([]rag.Chunk{{ID: "b", ChapterPath: "uk/sensors", SectionHeading: "Colour", Text: "The colour camera is centred on the arm. Its behaviour is modelled in the simulator, which can optimise the defence of the catalogue. Nobody is mourning."}})
	american := New([]rag.Chunk{{ID: "a", ChapterPath: "us/sensors", SectionHeading: "Labels", Text: "Labeling the data and signaling the planner are modeled in the catalog. Judgment is needed."}})
	tests := []struct {
		name string
		ix   *Index
		word string
		want string // the book's spelling, or the word itself when unknown
	}{
		{"color in a British book", british, "color", "colour"},
		{"centered", british, "centered", "centred"},
		{"behavior", british, "behavior", "behaviour"},
		{"optimize", british, "optimize", "optimise"},
		{"defense", british, "defense", "defence"},
		{"catalog", british, "catalog", "catalogue"},
		{"modeled", british, "modeled", "modelled"},
		{"labelling in an American book", american, "labelling", "labeling"},
		{"signalling", american, "signalling", "signaling"},
		{"catalogue", american, "catalogue", "catalog"},
		{"judgement", american, "judgement", "judgment"},
		// Only endings are swapped: "mourning" is not "morning".
		{"a word inside a word", british, "morning", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.ix.resolve(token{word: tt.word, stem: stem(tt.word)})
			if len(got) != 1 {
				t.Fatalf("resolve(%q) = %d terms, want 1", tt.word, len(got))
			}
			if tt.want == "" {
				if got[0].known {
					t.Errorf("resolve(%q) = %q, want it unknown", tt.word, got[0].word)
				}
				return
			}
			if !got[0].known || got[0].stem != stem(tt.want) {
				t.Errorf("resolve(%q) = %q known=%v, want %q", tt.word, got[0].word, got[0].known, tt.want)
			}
		})
	}
}
