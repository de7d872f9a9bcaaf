package answer

import (
	"regexp"
	"slices"
	"sort"
	"strings"
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

// markedTerm matches a term set in bold or italics ("**topic**",
// "*scaffolding*", "__SLAM__"); the term is the first group of whichever
// alternative matched.
var markedTerm = regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__|\*([^*\n]+)\*|_([^_\n]+)_`)

// DefinitionProbes derives one "What is X?" question for every term the
// book defines in so many words and marks in bold or italics ("A
// **topic** is a named channel ...", "*Scaffolding*: support that ..."),
// with the sections that define it, in book order of their first
// definition.
func (ans *Answerer) DefinitionProbes() []Probe {
	type site struct {
		term     string
		sections []string
		first    int
	}
	sites := map[string]*site{}
	n := 0
	for _, c := range ans.book.Chunks() {
		for _, u := range ans.units[c.ID] {
			n++
			if len(u.defined) == 0 || u.asks || u.kind == row {
				continue
			}
			term := markedDefinedTerm(u)
			if term == "" {
				continue
			}
			key := strings.ToLower(term)
			s := sites[key]
			if s == nil {
				s = &site{term: term, first: n}
				sites[key] = s
			}
			sec := c.ChapterPath + " › " + u.heading.Text
			if !slices.Contains(s.sections, sec) {
				s.sections = append(s.sections, sec)
			}
		}
	}
	all := make([]*site, 0, len(sites))
	for _, s := range sites {
		all = append(all, s)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].first < all[j].first })
	out := make([]Probe, len(all))
	for i, s := range all {
		out[i] = Probe{Question: "What is " + s.term + "?", Sections: s.sections}
	}
	return out
}

// markedDefinedTerm returns the term a unit defines when the text sets it
// in bold or italics, as written without the marks; "" otherwise.
func markedDefinedTerm(u *unit) string {
	for _, m := range markedTerm.FindAllStringSubmatch(u.text, -1) {
		term := ""
		for _, g := range m[1:] {
			if g != "" {
				term = strings.TrimSpace(strings.Trim(g, " :"))
			}
		}
		if term == "" || len(term) > 60 || labelWords[strings.ToLower(term)] {
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
