package answer

import (
	"regexp"
	"slices"
	"strings"

	"github.com/textbook-rag/rag/analysis"
)

// A definition question asks what one term is; its focus is the head of
// that term, the last word of the noun phrase in English ("a ROS 2
// topic" is a topic). A passage answers it best when it defines that very
// term, not a neighbour that shares a modifier ("ROS 2 is ...").

// focusIsX and focusXMean capture X in "what is X", "define X", "what
// does X mean" and their kin when that is the whole question, but for a
// lead-in before a comma ("In the glossary, what is X?") or a clause that
// places it ("... in Gazebo?"): a question that goes on ("what is X, and
// who defines it?") asks more than a definition.
var (
	focusIsX   = regexp.MustCompile(`(?i)^(?:[^?]*?,\s*)?(?:what\s+(?:is|are|was|were)|what's|whats|define|definition\s+of|meaning\s+of|explain\s+what)\s+(?:an?\s+|the\s+)?(.+?)(?:\s+(?:in|on|within|inside|according\s+to)\s+[^,;?]*)?\s*[?.!]?\s*$`)
	focusXMean = regexp.MustCompile(`(?i)^(?:[^?]*?,\s*)?what\s+(?:does|do|did)\s+(?:an?\s+|the\s+)?(.+?)\s+(?:mean|stand\s+for|refer\s+to)(?:\s+(?:in|on|within|inside|according\s+to)\s+[^,;?]*)?\s*[?.!]?\s*$`)
)

// focusTerm is the term a definition question asks about: the stems of
// its words and its head (the last).
type focusTerm struct {
	head  string
	stems []string
}

// definitionFocus returns the term a definition question asks about, or
// ok false when the question asks for no definition, or asks about more
// than one plain term ("the difference between a topic and a service",
// "the purpose of a topic").
func definitionFocus(question string) (f focusTerm, ok bool) {
	var x string
	if m := focusXMean.FindStringSubmatch(question); m != nil {
		x = m[1]
	} else if m := focusIsX.FindStringSubmatch(question); m != nil {
		x = m[1]
	}
	for _, t := range analysis.Tokenize(x) {
		if t.Part {
			continue
		}
		if analysis.Stopwords[t.Word] || analysis.QuestionWords[t.Word] {
			return focusTerm{}, false
		}
		f.stems = append(f.stems, t.Stem)
		f.head = t.Stem
	}
	return f, f.head != ""
}

// definesFocus reports a unit that defines, in so many words and with
// the term set in bold or italics (see markedDefinedTerm: the author's
// mark of the definition), the head of the term asked about, with the
// term's other words in the unit itself or around it (its heading,
// section or chapter): "A **topic** is ..." in the ROS 2 chapter defines
// "a ROS 2 topic".
func definesFocus(u *unit, f focusTerm) bool {
	if !u.defined[f.head] || markedDefinedTerm(u) == "" {
		return false
	}
	// "**DDS Layer**" defines a part of DDS, not DDS.
	for s := range u.defined {
		if !slices.Contains(f.stems, s) {
			return false
		}
	}
	for _, s := range f.stems {
		if !u.defined[s] && !u.terms[s] && u.ctx.source(s) < fromSection {
			return false
		}
	}
	return true
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
// words: a leading bold or italic term ("**Stall torque**: ..."), the
// subject of "X is ...", "X refers to ..." (see definitionShape), or the
// term of "... is called X". It returns nil for a unit that defines
// nothing; a table row describes its first cell rather than defining it.
func definedTerm(u *unit) map[string]bool {
	t := strings.TrimSpace(itemLine.ReplaceAllString(u.text, ""))
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

// Entries: a definition list ("Selector" on a line, ": A function that
// ..." on the next, as Markdown Extra, Pandoc and MkDocs write it) or a
// table of terms and their meanings states each term's meaning as an
// entry of its own, which answers "what is X?" as a glossary's entry
// does (see definer).

// definitionEntries splits a paragraph's lines into the entries of a
// definition list, each its term's line and the lines of its meaning
// (including further terms and meanings in one paragraph), or returns nil
// for a paragraph that is not one.
func definitionEntries(lines []string) []string {
	if len(lines) < 2 || !isMeaningLine(lines[1]) || !isTermLine(lines[0]) {
		return nil
	}
	var out []string
	for i, l := range lines {
		if i+1 < len(lines) && isTermLine(l) && isMeaningLine(lines[i+1]) || len(out) == 0 {
			out = append(out, l)
			continue
		}
		out[len(out)-1] += "\n" + l
	}
	return out
}

func isMeaningLine(l string) bool { return strings.HasPrefix(l, ": ") || strings.HasPrefix(l, ":\t") }

// isTermLine reports a line short enough to be a term, that is no
// sentence and no meaning line itself.
func isTermLine(l string) bool {
	return l != "" && len(l) <= 60 && !isMeaningLine(l) && !strings.ContainsAny(l[len(l)-1:], ".!?:")
}

// entryTerm returns the term a unit is the entry of, in a definition list
// (see definitionEntries) or a table of terms and meanings (see
// glossaryRow), as the book writes it; "" for any other unit.
func entryTerm(u *unit) string {
	switch u.kind {
	case row:
		return glossaryRow(u.text)
	case sentence:
		if term, _, ok := strings.Cut(u.text, "\n"); ok && isTermLine(term) && strings.HasPrefix(u.text[len(term)+1:], ":") {
			return strings.Trim(term, "*_` ")
		}
	}
	return ""
}
