package tutor

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/textbook-rag/rag"
)

// SelectionExplainer is an EvidenceFinder that also knows what the rest
// of the book adds to a reader's selection (package answer's is one). A
// question that only points at the selection ("What does this mean?")
// gets the whole selection as its evidence, which the extractive answer
// does not repeat: it quotes how the book defines the selection's key
// terms elsewhere and the sentences that lead into it, and links the
// other sections closest to it, or says that the book holds nothing
// more. Whether the selection answers is still judged on the selection
// alone.
type SelectionExplainer interface {
	// ExplainSelection returns the book's help with the selection, and
	// false for a question that asks something of the selection.
	ExplainSelection(question, selected string) (rag.Explanation, bool)
}

// explain returns the book's help with a selection that the question
// only points at, or nil: for any other question, or an evidence finder
// that cannot explain. A language model is given the selection alone, as
// the refusal spec's selected-text mode says; the explanation is quoted
// by the extractive answer (the model's fallback too).
func (t *Tutor) explain(ctx context.Context, req rag.ChatRequest) (*rag.Explanation, error) {
	x, ok := t.Evidence.(SelectionExplainer)
	if !ok {
		return nil, nil
	}
	e, ok := x.ExplainSelection(req.Question, req.SelectedText)
	if !ok {
		return nil, nil
	}
	related, err := t.related(ctx, req.SelectedText, &e)
	if err != nil {
		return nil, fmt.Errorf("sections related to the selection: %w", err)
	}
	e.Related = related
	return &e, nil
}

// maxRelated bounds the other sections an explanation links to.
const maxRelated = 3

// related finds the other sections that discuss what the selection does:
// the section search's (Sections) best chunks for the selection's text that reach the
// empty threshold, one per section, leaving out the sections the
// explanation already quotes and the chunk that holds the selection.
func (t *Tutor) related(ctx context.Context, selected string, e *rag.Explanation) ([]rag.Passage, error) {
	if t.Sections == nil {
		return nil, nil
	}
	chunks, err := t.Sections.Retrieve(ctx, selected, t.Config.TopK+maxRelated)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, p := range e.Passages() {
		if p.Chunk != nil {
			seen[p.Chunk.ChapterPath+"\x00"+p.Chunk.SectionHeading] = true
		}
	}
	own := collapse(selected)
	if len(own) > 80 {
		own = own[:80]
	}
	var out []rag.Passage
	for i := range chunks {
		c := &chunks[i]
		key := c.ChapterPath + "\x00" + c.SectionHeading
		if c.Score < t.Config.EmptyThreshold || seen[key] || own != "" && strings.Contains(collapse(c.Text), own) {
			continue
		}
		seen[key] = true
		out = append(out, rag.Passage{Heading: rag.Heading{Text: c.SectionHeading, Anchor: c.Anchor}, Chunk: c})
		if len(out) == maxRelated {
			break
		}
	}
	return out, nil
}

// collapse lowers text and keeps only its letters and digits, one space
// between words: a selection copied from a page matches the book's text.
func collapse(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// junk reports a selection with no word in it ("[[[[…", a run of
// symbols): there is nothing to explain, and it is refused, not echoed.
func junk(selected string) bool {
	return !strings.ContainsFunc(selected, unicode.IsLetter)
}
