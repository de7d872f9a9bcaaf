package rag

// Explanation is what the rest of the book adds to a reader's selection
// when the question only points at it ("What does this mean?", "Explain
// this"): the book's own definitions of the selection's key terms, quoted
// from elsewhere in the book, the sentences that lead into the selection
// where the book holds it, and the other sections closest to it. Every
// passage is the book's text with its chunk, so each gives an ordinary
// source; the selection itself stays the evidence, which the answer does
// not repeat. An empty Explanation says that the book holds nothing more
// about the selection.
type Explanation struct {
	// LeadIn is the one or two sentences right before the selection in
	// its section, in book order.
	LeadIn []Passage
	// Definitions are the book's definitions of the selection's key
	// terms, the most informative first.
	Definitions []Definition
	// Related are the other sections that discuss what the selection
	// does, closest first: one passage (the section's opening) each.
	Related []Passage
}

// Definition is a passage of the book that defines a term in so many
// words.
type Definition struct {
	// Term is the term as the book writes it ("Series Elastic Actuator").
	Term    string
	Passage Passage
}

// Empty reports an explanation that quotes nothing.
func (e *Explanation) Empty() bool {
	return e == nil || len(e.LeadIn) == 0 && len(e.Definitions) == 0 && len(e.Related) == 0
}

// Passages lists the passages in the order an answer gives them: the
// lead-in, the definitions, the related sections.
func (e *Explanation) Passages() []Passage {
	if e == nil {
		return nil
	}
	out := append([]Passage(nil), e.LeadIn...)
	for _, d := range e.Definitions {
		out = append(out, d.Passage)
	}
	return append(out, e.Related...)
}
