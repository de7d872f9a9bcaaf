package answer

import (
	"regexp"
	"strings"

	"github.com/textbook-rag/rag/analysis"
)

// A definition question asks what one term is; its focus is the head of
// that term, the last word of the noun phrase in English ("a ROS 2
// topic" is a topic). A passage answers it best when it defines that very
// term, not a neighbour that shares a modifier ("ROS 2 is ...").

// focusQuestion captures X in "what is X", "define X", "what does X mean"
// and their kin, up to a clause that only places it ("in Gazebo", "when
// ...").
var (
	focusIsX   = regexp.MustCompile(`(?i)\b(?:what\s+(?:is|are|was|were)|what's|whats|define|definition\s+of|meaning\s+of|explain\s+what)\s+(?:an?\s+|the\s+)?(.+?)\s*(?:[?.!,;:]|\s+(?:in|on|for|within|inside|when|and|used|exactly|actually|really|mean|means)\b|$)`)
	focusXMean = regexp.MustCompile(`(?i)\bwhat\s+(?:does|do|did)\s+(?:an?\s+|the\s+)?(.+?)\s+(?:mean|stand\s+for|refer\s+to)\b`)
)

// definitionFocus returns the stem of the head of the term a definition
// question asks about, or "" when the question asks for no definition.
func definitionFocus(question string) string {
	var x string
	if m := focusXMean.FindStringSubmatch(question); m != nil {
		x = m[1]
	} else if m := focusIsX.FindStringSubmatch(question); m != nil {
		x = m[1]
	}
	head := ""
	for _, t := range analysis.Tokenize(x) {
		if !t.Part && !analysis.Stopwords[t.Word] && !analysis.QuestionWords[t.Word] {
			head = t.Stem
		}
	}
	return head
}

// Explicit definitions: the term a passage defines in so many words. A
// unit's heading is not one: definedTerm says only what the text itself
// marks as defined.
var (
	// leadingTerm: a bold or italic term opening the line, then a colon,
	// a dash or a verb ("**Stall torque**: ...", "*Scaffolding* is ...").
	leadingTerm = regexp.MustCompile(`^(?:\*\*|__|\*|_)([^*_\n]{1,60}?)(?:\*\*|__|\*|_)\s*(?:\([^)]*\)\s*)?(?::|—|–|-\s|is\b|are\b|means\b|refers\b|describes\b|,)`)
	// calledTerm: "... is called a *topic*", "known as SLAM".
	calledTerm = regexp.MustCompile(`(?i)\b(?:is|are)\s+(?:called|known\s+as|termed|referred\s+to\s+as)\s+(?:an?\s+|the\s+)?(?:\*\*|__|\*|_|")?([\w./-]+(?:\s+[\w./-]+){0,2})`)
)

// definedTerm returns the stems of the term a unit defines in so many
// words: a leading bold or italic term, the first cell of a table row
// ("| **Drift** | Slowly changing bias |"), the subject of "X is ...", "X
// refers to ..." (see definitionShape), or the term of "... is called
// X". It returns nil for a unit that defines nothing.
func definedTerm(u *unit) map[string]bool {
	t := strings.TrimSpace(itemLine.ReplaceAllString(u.text, ""))
	if u.kind == row {
		lines := strings.Split(u.text, "\n")
		cells := strings.Split(strings.Trim(strings.TrimSpace(lines[len(lines)-1]), "|"), "|")
		if len(cells) < 2 {
			return nil
		}
		return termStems(strings.Trim(strings.TrimSpace(cells[0]), "*_`"))
	}
	if u.kind != sentence && u.kind != item && u.kind != label {
		return nil
	}
	if m := leadingTerm.FindStringSubmatch(t); m != nil && !labelWords[strings.ToLower(strings.TrimSpace(m[1]))] {
		return termStems(m[1])
	}
	plain := strings.NewReplacer("**", "", "__", "", "*", "", "`", "").Replace(t)
	if m := definitionShape.FindStringSubmatch(plain); m != nil {
		return termStems(m[1])
	}
	if m := calledTerm.FindStringSubmatch(plain); m != nil {
		return termStems(m[1])
	}
	return nil
}

func termStems(term string) map[string]bool {
	s := analysis.StemSet(strings.TrimSpace(strings.Split(term, "(")[0]))
	if len(s) == 0 {
		return nil
	}
	return s
}
