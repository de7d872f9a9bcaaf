package answer

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

// A Probe is a question derived from the book's own structure, with the
// sections that answer it: the self-check asks the tutor these, as a
// course team's book comes with no labelled questions.
type Probe struct {
	Question string
	// Sections are where the book answers it ("chapter › heading", as
	// Candidate.Section names them): a term may be defined in more than
	// one place.
	Sections []string
}

// headingTerm is the term a heading names: without a leading number
// ("3. Services"), a trailing question mark ("What is RCLPY?" names
// RCLPY) or a leading article ("The Sim-to-Real Gap").
func headingTerm(h string) string {
	h = strings.TrimSpace(h)
	h = strings.TrimLeft(h, "0123456789. ")
	h = strings.TrimSuffix(h, "?")
	for _, p := range []string{"What is ", "What are ", "what is ", "what are ", "The ", "the ", "An ", "A "} {
		h = strings.TrimPrefix(h, p)
	}
	return strings.TrimSpace(h)
}

// isName reports a marked term that names something, as a reader would
// ask about it: a few words, no question ("Why This Works?"), no clause
// ("Point clouds are the universal 3D representation") and no label
// opened by a symbol ("🎓 Expert Insight").
func isName(term string) bool {
	words := strings.Fields(term)
	if len(words) == 0 || len(words) > maxNameWords || strings.ContainsAny(term, "?!") {
		return false
	}
	if r := []rune(term)[0]; !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		return false
	}
	for _, w := range words {
		if nameBreakers[strings.ToLower(strings.Trim(w, ",.:;()"))] {
			return false
		}
	}
	return true
}

// nameBreakers are words that make a marked phrase a clause or a
// question rather than a name.
var nameBreakers = map[string]bool{"is": true, "are": true, "was": true, "were": true, "be": true, "has": true,
	"have": true, "should": true, "must": true, "can": true, "will": true, "does": true, "do": true,
	"what": true, "why": true, "how": true, "when": true, "where": true, "which": true, "who": true}

// probeKey is how a term and a heading's term are compared: by the stems
// of their words, so "Coordinate Frames" heads "coordinate frame", and
// without a spelled-out name in brackets ("CLIP (Contrastive
// Language-Image Pre-training)" heads CLIP).
func probeKey(term string) string {
	if i := strings.LastIndex(term, " ("); i > 0 && strings.HasSuffix(term, ")") {
		term = term[:i]
	}
	var stems []string
	for _, s := range stemSequence(term) {
		if !slices.Contains(stems, s) {
			stems = append(stems, s)
		}
	}
	return termKey(stems)
}

// markedTerm matches a term set in bold or italics ("**topic**",
// "*scaffolding*", "__SLAM__"); the term is the first group of whichever
// alternative matched.
var markedTerm = regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__|\*([^*\n]+)\*|_([^_\n]+)_`)

// DefinitionProbes derives one "What is X?" question for every term the
// book defines in so many words and marks in bold or italics ("A
// **topic** is a named channel ...", "*Scaffolding*: support that ..."),
// with the sections that define it, in book order of their first
// definition. They are part of the book side (see bookSide): read or
// built with it.
func (ans *Answerer) DefinitionProbes() []Probe {
	return slices.Clone(ans.bookSide().probes)
}

// probeSites gathers the terms the book defines, chunk by chunk, in book
// order: one site a term (by probeKey).
type probeSites struct {
	sites map[string]*probeSite
	n     int // the units seen
}

type probeSite struct {
	term     string
	sections []string
	first    int
}

func newProbeSites() *probeSites { return &probeSites{sites: map[string]*probeSite{}} }

// addChunk adds the terms chunk c's units define.
func (ps *probeSites) addChunk(c *rag.Chunk, units []*unit) {
	// A quiz's or an exercise's label ("**Requirement**: ...") is no
	// definition of the book's.
	quiz := analysis.AssessmentTitle(c.ChapterTitle) || analysis.AssessmentTitle(c.SectionHeading)
	for _, u := range units {
		ps.n++
		if len(u.defined) == 0 || u.asks || quiz || analysis.AssessmentTitle(u.heading.Text) || u.kind == row {
			continue
		}
		term := markedDefinedTerm(u)
		if !isName(term) {
			continue
		}
		key := probeKey(term)
		s := ps.sites[key]
		if s == nil {
			s = &probeSite{term: term, first: ps.n}
			ps.sites[key] = s
		}
		sec := c.ChapterPath + " › " + u.heading.Text
		if !slices.Contains(s.sections, sec) {
			s.sections = append(s.sections, sec)
		}
	}
}

// probes are the questions of the terms gathered, with their sections and
// those the book's chunks head by the term.
func (ps *probeSites) probes(chunks []rag.Chunk) []Probe {
	// A section headed by the term is its own section too ("Forward
	// Kinematics" in the kinematics chapter, beside the glossary's entry).
	for _, c := range chunks {
		if analysis.AssessmentTitle(c.ChapterTitle) {
			continue
		}
		for _, h := range append([]rag.Heading{{Text: c.SectionHeading}}, c.Headings...) {
			if s := ps.sites[probeKey(headingTerm(h.Text))]; s != nil {
				if sec := c.ChapterPath + " › " + h.Text; !slices.Contains(s.sections, sec) {
					s.sections = append(s.sections, sec)
				}
			}
		}
	}
	all := make([]*probeSite, 0, len(ps.sites))
	for _, s := range ps.sites {
		all = append(all, s)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].first < all[j].first })
	out := make([]Probe, len(all))
	for i, s := range all {
		out[i] = Probe{Question: "What is " + s.term + "?", Sections: s.sections}
	}
	return out
}

// definingSentence matches a sentence that defines its marked subject in
// so many words: "A **topic** is ...", "*Drift* refers to ...", "...
// is called a *topic*".
var definingSentence = regexp.MustCompile(`(?i)^(?:(?:a|an|the)\s+)?(?:\*\*|__|\*|_)[^*_\n]{1,60}(?:\*\*|__|\*|_)(?:\s+\([^)]*\))?\s+(?:is|are|means|refers\s+to|describes|stands\s+for)\s|\b(?:is|are)\s+(?:called|known\s+as|termed|referred\s+to\s+as)\s+(?:an?\s+|the\s+)?(?:\*\*|__|\*|_)`)

// describedTerm matches a paragraph that opens with a bold or italic
// term and goes on to describe it in a sentence of its own: "**Isaac ROS
// AprilTag Detection**: GPU-accelerated fiducial marker detection ...".
var describedTerm = regexp.MustCompile(`^(?:\*\*|__|\*|_)[^*_\n]{1,60}(?:\*\*|__|\*|_)\s*(?::|—|–)\s+\S+(?:\s+\S+){3,}`)

// markedDefinedTerm returns the term a sentence defines when the text
// sets it in bold or italics, as written without the marks: "A **topic**
// is a named channel ...", or a paragraph opening "**Topic**: a named
// channel ..."; "" otherwise. A sentence that introduces a list
// ("**Topics** are named channels for streaming data:") defines as
// well. A bold label opening a list item ("1. **Define the velocity**:
// ...") names a step or a point rather than defining a term, and gives
// none.
func markedDefinedTerm(u *unit) string {
	t := strings.TrimSpace(u.text)
	if u.kind != sentence && u.kind != label || !definingSentence.MatchString(t) && !describedTerm.MatchString(t) {
		return ""
	}
	for _, m := range markedTerm.FindAllStringSubmatch(u.text, -1) {
		term := ""
		for _, g := range m[1:] {
			if g != "" {
				term = strings.TrimSpace(strings.Trim(g, " :.,;"))
			}
		}
		if term == "" || len(term) > maxTermChars || labelWords[strings.ToLower(term)] {
			continue
		}
		stems := termStems(term)
		if len(stems) == 0 || len(stems) != len(u.defined) {
			continue
		}
		same := true
		for s := range stems {
			same = same && u.defined[s]
		}
		if same {
			return term
		}
	}
	return ""
}
