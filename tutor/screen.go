package tutor

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/textbook-rag/rag"
)

// DefaultOutsideKnowledgePhrases are the phrases that mark a language
// model's sentence as drawn from outside the passages.
var DefaultOutsideKnowledgePhrases = []string{
	"In general", "Typically", "I believe", "Based on my understanding",
	"You might also consider", "As a best practice",
}

// rejection is why the tutor did not accept a language model's text.
type rejection struct {
	// declined: the model replied NOT_IN_CONTEXT, its judgement that the
	// passages hold no answer.
	declined bool
	// outside: a sentence uses an outside-knowledge phrase.
	outside bool
	why     string
}

func (r *rejection) Error() string { return "the language model's text was rejected: " + r.why }

// screen judges a language model's text a sentence at a time, as it
// arrives, and releases only sentences it accepts. Feeding the whole text
// at once gives the same verdict and the same released text, so a
// streamed answer and a plain one never differ.
type screen struct {
	phrases []string

	pending  string // received, not yet judged
	sep      string // whitespace after the last released sentence
	released strings.Builder
	n        int // sentences judged
}

// feed takes more text and returns the part that may be released now, or
// the rejection of a sentence.
func (s *screen) feed(text string) (string, *rejection) {
	s.pending += text
	var out strings.Builder
	for {
		end := sentenceEnd(s.pending)
		if end < 0 {
			return out.String(), nil
		}
		rel, rej := s.judge(s.pending[:end])
		if rej != nil {
			return "", rej
		}
		out.WriteString(rel)
		s.pending = s.pending[end:]
	}
}

// end judges the generator's report once it has stopped: its whole text
// first when none was fed while it ran, then what is left (see finish).
func (s *screen) end(out rag.Generated, whole bool) (string, *rejection) {
	if whole {
		if _, rej := s.feed(out.Text); rej != nil {
			return "", rej
		}
	}
	return s.finish(out.Finish)
}

// finish judges what is left once the generator has stopped, and the text
// as a whole: it must be complete and not empty.
func (s *screen) finish(finish string) (string, *rejection) {
	rel := ""
	if strings.TrimSpace(s.pending) != "" {
		var rej *rejection
		if rel, rej = s.judge(s.pending); rej != nil {
			return "", rej
		}
		s.pending = ""
	}
	if finish != rag.FinishStop {
		return "", &rejection{why: "the text did not finish (" + finish + ")"}
	}
	if s.released.Len() == 0 {
		return "", &rejection{why: "the text is empty"}
	}
	return rel, nil
}

// judge accepts or rejects one sentence and returns the text to release:
// the whitespace before it, then the sentence without its trailing
// whitespace, which waits for the next sentence. The released text is
// thus the model's text, trimmed.
func (s *screen) judge(sentence string) (string, *rejection) {
	s.n++
	body := strings.TrimRightFunc(sentence, unicode.IsSpace)
	lead := len(body) - len(strings.TrimLeftFunc(body, unicode.IsSpace))
	if body == "" {
		s.sep += sentence
		return "", nil
	}
	if s.released.Len() == 0 {
		// Nothing shown yet: leading whitespace is dropped.
		s.sep, body = "", body[lead:]
	}
	if s.released.Len() == 0 && strings.HasPrefix(body, rag.NotInContext) {
		return "", &rejection{declined: true, why: "the model found no answer in the passages"}
	}
	if strings.Contains(body, rag.NotInContext) {
		return "", &rejection{why: "the marker " + rag.NotInContext + " stands after text"}
	}
	if strings.IndexFunc(sentence, isControl) >= 0 {
		return "", &rejection{why: "a control character in the text"}
	}
	low := strings.ToLower(body)
	for _, p := range s.phrases {
		if strings.Contains(low, strings.ToLower(p)) {
			return "", &rejection{outside: true, why: "sentence " + strconv.Itoa(s.n) + " uses the outside-knowledge phrase " + `"` + p + `"`}
		}
	}
	out := s.sep + body
	s.sep = sentence[len(strings.TrimRightFunc(sentence, unicode.IsSpace)):]
	s.released.WriteString(out)
	return out, nil
}

// isControl reports characters no answer holds: NUL and the other control
// characters, except line breaks and tabs.
func isControl(r rune) bool {
	return unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r'
}

// sentenceEnd finds the end of the first complete sentence (after ". ",
// "! ", "? " or a newline), or -1.
func sentenceEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			return i + 1
		case '.', '!', '?':
			if i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\n') {
				return i + 2
			}
		}
	}
	return -1
}
