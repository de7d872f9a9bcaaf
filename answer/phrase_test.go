package answer

import (
	"reflect"
	"testing"
)

func TestPhrasePairs(t *testing.T) {
	tests := []struct {
		question string
		want     []string
	}{
		{"what is a do while loop", []string{" do while ", " while loop "}},
		{"How do I declare a variable in JavaScript?", []string{" declare a ", " a variable ", " variable in ", " in javascript "}},
		{"Topics?", nil},
		{"What's the Do...While statement", []string{" do while ", " while statement "}},
	}
	for _, tt := range tests {
		if got := phrasePairs(tt.question); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("phrasePairs(%q) = %q, want %q", tt.question, got, tt.want)
		}
	}
}

func TestPhraseShare(t *testing.T) {
	pairs := phrasePairs("what is a do while loop")
	for _, tt := range []struct {
		name  string
		texts []string
		want  float64
	}{
		{"the heading states the phrase", []string{" " + phraseText("Do...While") + " ", " " + phraseText("The body runs once before the test.") + " "}, 0.5},
		{"the text states all of it", []string{" " + phraseText("A do-while loop checks at the end.") + " "}, 1},
		{"a for loop states none", []string{" " + phraseText("A for loop counts from 0 to 9.") + " "}, 0},
		{"no text", nil, 0},
	} {
		if got := phraseShare(pairs, tt.texts...); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
