package answer

import (
	"strings"
	"testing"

	"github.com/textbook-rag/rag/analysis"
)

// wordByWord is Topic as it was before the question was read once: each
// word tokenized alone.
func wordByWord(ans *Answerer, question string) string {
	fields := strings.FieldsFunc(question, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == ',' || r == '?' || r == '!' || r == ';' || r == ':' || r == '(' || r == ')' || r == '"'
	})
	var best, run []string
	var bestW, runW float64
	flush := func() {
		if runW > bestW {
			best, bestW = append([]string(nil), run...), runW
		}
		run, runW = run[:0], 0
	}
	for _, f := range fields {
		word := strings.Trim(f, ".'’")
		toks := analysis.Tokenize(word)
		if len(toks) == 0 {
			flush()
			continue
		}
		t := toks[0]
		if analysis.Stopwords[t.Word] || analysis.QuestionWords[t.Word] || (ans.book.DF(t.Stem) == 0 && analysis.IsMisspeltFunctionWord(t.Word)) {
			flush()
			continue
		}
		run = append(run, word)
		runW += ans.book.IDF(t.Stem)
	}
	flush()
	return strings.Join(best, " ")
}

// TestTopicFromTokens: Topic reads each word by the question's own
// tokens and names the same topic as tokenizing each word alone did,
// whatever the punctuation, identifiers and operators around it.
func TestTopicFromTokens(t *testing.T) {
	ans := newAnswerer(testChunks)
	for _, q := range []string{
		"What is a good recipe for banana bread?",
		"Who won the 2022 FIFA World Cup final?",
		"what is it?",
		"How does ImuPublisher's node.create_publisher() set its QoS?",
		"Is a != b, or c->d, in Haskell's do-notation?",
		"'tis .5 e.g. v1.2. of the 'latest' ‘release’…",
		"C++ vs. Rust: which “borrow checker” wins?!",
		"α and β radiation (in 10-50 ms)?",
		"   ",
		"What does check_urdf say about robot.urdf.xacro?",
	} {
		if got, want := ans.Topic(ans.Read(q)), wordByWord(ans, q); got != want {
			t.Errorf("Topic(%q) = %q, want %q as word by word", q, got, want)
		}
	}
}
