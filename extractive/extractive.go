// Package extractive is the default generator: it answers with the book's
// own sentences, list items, table rows and code blocks that the evidence
// finder chose, grouped by the section they come from, in book order. It
// writes no sentence of content that is not in the context; the only words
// of its own are the lines that say where each part comes from ("From
// …", and for a selection's explanation "Just before your selection, in
// …", "The book defines … in …") and, when the book adds nothing to a
// selection, NothingMore.
package extractive

import (
	"context"
	"strings"

	"github.com/textbook-rag/rag"
)

var _ rag.Generator = Generator{}

// Generator is the extractive answerer. Its zero value is ready to use.
type Generator struct{}

// Generate renders the evidence. emit, when given, receives the answer
// one section at a time.
func (Generator) Generate(ctx context.Context, req rag.GenerateRequest, emit func(string) error) (rag.Generated, error) {
	if err := ctx.Err(); err != nil {
		return rag.Generated{}, err
	}
	var parts []string
	// A question that only points at the selection is never answered
	// with the selection alone: with what the book adds to it, or, when
	// it adds nothing, with the sentence that says so.
	if req.Explanation == nil || !req.Explanation.Empty() {
		evidence := req.Evidence
		if req.Explanation != nil {
			evidence = selectionLead(evidence)
		}
		for _, g := range group(evidence) {
			parts = append(parts, render(g))
		}
	}
	if req.Explanation != nil {
		parts = append(parts, explanation(req.Explanation)...)
	}
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			p = "\n\n" + p
		}
		b.WriteString(p)
		if emit != nil {
			if err := emit(p); err != nil {
				return rag.Generated{}, err
			}
		}
	}
	return rag.Generated{Text: b.String(), Finish: rag.FinishStop}, nil
}

type section struct {
	title    string
	passages []rag.Passage
}

// group keeps consecutive passages of one section together.
func group(evidence []rag.Passage) []section {
	var out []section
	for _, p := range evidence {
		title := "From your selection:"
		if p.Chunk != nil {
			title = "From " + place(p) + ":"
		}
		if n := len(out); n > 0 && out[n-1].title == title {
			out[n-1].passages = append(out[n-1].passages, p)
			continue
		}
		out = append(out, section{title: title, passages: []rag.Passage{p}})
	}
	return out
}

// render lays a section's passages out as Markdown: prose sentences of one
// paragraph run on and another paragraph starts after a blank line, list
// items and code blocks keep their lines, and rows of one table share a
// single header.
func render(s section) string {
	var b strings.Builder
	b.WriteString(s.title)
	prevHeader := ""
	prevKind := ""
	var prev rag.Passage
	for i, p := range s.passages {
		text := strings.TrimSpace(p.Text)
		kind := kindOf(text)
		// A heading inside the reader's selection is part of what they
		// chose and may be what answers ("NITROS (NVIDIA Isaac Transport
		// and ROS)"): it comes before its first quoted passage.
		if h := strings.TrimSpace(p.Heading.Text); p.Chunk == nil && h != "" && (i == 0 || h != strings.TrimSpace(prev.Heading.Text)) {
			b.WriteString("\n\n**" + h + "**")
			prevKind = ""
		}
		switch kind {
		case "row":
			lines := strings.Split(text, "\n")
			header := ""
			if len(lines) == 3 {
				header = lines[0] + "\n" + lines[1]
			}
			if prevKind == "row" && header == prevHeader {
				b.WriteString("\n" + lines[len(lines)-1])
			} else {
				b.WriteString("\n\n" + text)
			}
			prevHeader = header
		case "item":
			if prevKind == "item" {
				b.WriteString("\n" + text)
			} else {
				b.WriteString("\n\n" + text)
			}
		case "prose":
			if prevKind == "prose" && sameParagraph(prev, p) {
				b.WriteString(" " + text)
			} else {
				b.WriteString("\n\n" + text)
			}
		default:
			b.WriteString("\n\n" + text)
		}
		prevKind = kind
		prev = p
	}
	return b.String()
}

// sameParagraph reports two passages from one paragraph of one text, or
// passages that do not say which paragraph they come from.
func sameParagraph(a, b rag.Passage) bool {
	if a.Paragraph == 0 || b.Paragraph == 0 {
		return true
	}
	if (a.Chunk == nil) != (b.Chunk == nil) || a.Chunk != nil && a.Chunk.ID != b.Chunk.ID {
		return false
	}
	return a.Paragraph == b.Paragraph
}

func kindOf(text string) string {
	switch {
	case strings.HasPrefix(text, "```") || strings.HasPrefix(text, "~~~"):
		return "code"
	case strings.HasPrefix(text, "|"):
		return "row"
	case strings.HasPrefix(text, "- ") || strings.HasPrefix(text, "* ") || strings.HasPrefix(text, "+ ") || isOrdered(text):
		return "item"
	}
	return "prose"
}

func isOrdered(text string) bool {
	i := 0
	for i < len(text) && text[i] >= '0' && text[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(text) && (text[i] == '.' || text[i] == ')') && text[i+1] == ' '
}
