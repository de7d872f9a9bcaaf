package answer

import (
	"regexp"
	"strings"
	"unicode"
)

// A question's key phrase is its words in their order: "a do while loop"
// names a construct that "loop" alone does not, though "do" and "while"
// are function words that weigh nothing on their own. The phrase is
// matched as adjacent word pairs, in the window's text, its heading or
// its page's title, with punctuation between the words ignored
// ("Do...While").

// questionOpening is the interrogative opening of an English question
// ("what is a", "how do I", "can you"), as phraseText writes it: it frames the question and is
// never part of its phrase.
var questionOpening = regexp.MustCompile(`^(?:(?:what|which|who|how|why|when|where)(?: s)?\s+)?(?:(?:is|are|was|were|do|does|did|can|could|should|would|will|shall|may|might|must)\s+)?(?:(?:i|we|you|one|it|there|they)\s+)?(?:(?:a|an|the)\s+)?`)

// phraseText lower-cases text and keeps its words, one space between
// each: "Do...While loops" is "do while loops".
func phraseText(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	space := true
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// phrasePairs are the adjacent word pairs of a question after its
// opening, each as " a b " (spaces around, to match whole words).
func phrasePairs(question string) []string {
	words := strings.Fields(questionOpening.ReplaceAllString(phraseText(question), ""))
	var pairs []string
	for i := 0; i+1 < len(words); i++ {
		pairs = append(pairs, " "+words[i]+" "+words[i+1]+" ")
	}
	return pairs
}

// phraseShare is the share of the pairs that texts (each " words ", see
// phraseText) state as adjacent words.
func phraseShare(pairs []string, texts ...string) float64 {
	if len(pairs) == 0 {
		return 0
	}
	n := 0
	for _, p := range pairs {
		for _, t := range texts {
			if strings.Contains(t, p) {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(pairs))
}
