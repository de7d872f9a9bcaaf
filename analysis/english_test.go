package analysis

import (
	"testing"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/internal/testbook"
)

func TestEnglishWordList(t *testing.T) {
	words := englishWords()
	if words.len() < 50_000 {
		t.Fatalf("embedded word list holds %d words, want the whole of wamerican", words.len())
	}
	for i := 1; i < words.len(); i++ {
		if words.at(i-1) > words.at(i) {
			t.Fatalf("embedded word list is not sorted at %q: regenerate it with go generate ./analysis", words.at(i))
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

var repairChunks = testbook.Repair

func TestSpellingRepair(t *testing.T) {
	ix := NewBook(repairChunks)
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
			got := ix.Resolve(Token{Word: tt.word, Stem: Stem(tt.word)})
			if len(got) != 1 {
				t.Fatalf("resolve(%q) = %d terms, want 1", tt.word, len(got))
			}
			if got[0].Stem != Stem(tt.want) || got[0].Known != tt.known {
				t.Errorf("resolve(%q) = %q known=%v, want %q known=%v", tt.word, got[0].Stem, got[0].Known, Stem(tt.want), tt.known)
			}
		})
	}
}

func TestSpellingVariants(t *testing.T) {
	british := NewBook([]rag.Chunk{{ID: "b", ChapterPath: "uk/sensors", SectionHeading: "Colour", Text: "The colour camera is centred on the arm. Its behaviour is modelled in the simulator, which can optimise the defence of the catalogue. Nobody is mourning."}})
	american := NewBook([]rag.Chunk{{ID: "a", ChapterPath: "us/sensors", SectionHeading: "Labels", Text: "Labeling the data and signaling the planner are modeled in the catalog. Judgment is needed."}})
	tests := []struct {
		name string
		ix   *Book
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
			got := tt.ix.Resolve(Token{Word: tt.word, Stem: Stem(tt.word)})
			if len(got) != 1 {
				t.Fatalf("resolve(%q) = %d terms, want 1", tt.word, len(got))
			}
			if tt.want == "" {
				if got[0].Known {
					t.Errorf("resolve(%q) = %q, want it unknown", tt.word, got[0].Word)
				}
				return
			}
			if !got[0].Known || got[0].Stem != Stem(tt.want) {
				t.Errorf("resolve(%q) = %q known=%v, want %q", tt.word, got[0].Word, got[0].Known, tt.want)
			}
		})
	}
}
