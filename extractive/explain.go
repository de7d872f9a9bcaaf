package extractive

import (
	"strings"

	"github.com/textbook-rag/rag"
)

// NothingMore answers a question that only points at a selection ("What
// does this mean?") when the rest of the book adds nothing to it: no
// definition of its terms elsewhere, no sentence leading into it, no
// other section about it. The selection is not repeated then.
const NothingMore = "The book says nothing more about this passage."

// maxEchoWords bounds the selection an explanation repeats: the reader
// has the selection before them, so it is echoed only as a short lead
// (a sentence or two of its first paragraph) that says which passage the
// explanation is about.
const maxEchoWords = 30

// selectionLead is the opening of the selection that an explanation
// echoes: its first paragraph's sentences while they stay within
// maxEchoWords words, none when the first is longer or is no sentence (a
// code block, a table row).
func selectionLead(selection []rag.Passage) []rag.Passage {
	words := 0
	for i, p := range selection {
		words += len(strings.Fields(p.Text))
		if words > maxEchoWords || kindOf(strings.TrimSpace(p.Text)) != "prose" || i > 0 && !sameParagraph(selection[0], p) {
			return selection[:i]
		}
	}
	return selection
}

// Titles of the parts of an explanation; each is followed by where in the
// book the part comes from.
const (
	LeadInTitle     = "Just before your selection, in "
	DefinitionTitle = "The book defines "
	RelatedTitle    = "Other sections that discuss this:"
)

// explanation renders what the book adds to a selection, after its lead
// (see selectionLead): the
// sentences that lead into it, then each definition under a line naming
// its term, each with where it comes from, then the other sections that
// discuss it; or NothingMore, in the selection's place.
func explanation(e *rag.Explanation) []string {
	if e.Empty() {
		return []string{NothingMore}
	}
	var parts []string
	if len(e.LeadIn) > 0 {
		parts = append(parts, render(section{title: LeadInTitle + place(e.LeadIn[0]) + ":", passages: e.LeadIn}))
	}
	for _, d := range e.Definitions {
		title := DefinitionTitle + "“" + d.Term + "” in " + place(d.Passage) + ":"
		if h, c := d.Passage.Heading.Text, d.Passage.Chunk.ChapterTitle; strings.EqualFold(h, d.Term) {
			// An entry of a glossary: its heading is the term.
			title = DefinitionTitle + "“" + d.Term + "”:"
			if c != "" && c != h {
				title = DefinitionTitle + "“" + d.Term + "” in “" + c + "”:"
			}
		}
		parts = append(parts, render(section{title: title, passages: []rag.Passage{d.Passage}}))
	}
	if len(e.Related) > 0 {
		lines := []string{RelatedTitle, ""}
		for _, p := range e.Related {
			lines = append(lines, "- "+place(p))
		}
		parts = append(parts, strings.Join(lines, "\n"))
	}
	return parts
}

// place names where a passage of the book comes from: its heading in
// quotes, and its chapter's title unless that is the heading.
func place(p rag.Passage) string {
	h := p.Heading.Text
	if h == "" {
		h = p.Chunk.SectionHeading
	}
	if p.Chunk.ChapterTitle == "" || p.Chunk.ChapterTitle == h {
		return "“" + h + "”"
	}
	return "“" + h + "” (" + p.Chunk.ChapterTitle + ")"
}
