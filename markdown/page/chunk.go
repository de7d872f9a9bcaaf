package page

import (
	"context"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/textbook-rag/rag"
)

// idSpace is the namespace of chunk ids: a chunk's id is a UUID v5 of its
// chapter path, section heading and index in the section, so an unchanged
// book always yields the same ids.
var idSpace = uuid.MustParse("6f1c3f4e-2b1a-5d7e-9c8b-7a6e5d4c3b2a")

// leftOut are headings whose sections are navigation, tables of contents
// or self-assessment: not content a reader asks about.
var leftOut = []string{
	"what's next", "whats next", "what’s next", "next steps", "next chapter", "prerequisites",
	"table of contents", "contents", "in this chapter",
	"self-assessment", "self assessment", "quiz", "review questions", "check your understanding", "knowledge check",
}

func isLeftOut(title string) bool {
	t := strings.ToLower(strings.TrimSpace(title))
	for _, l := range leftOut {
		if t == l || strings.HasPrefix(t, l) {
			return true
		}
	}
	return false
}

// item is a block of a section: content, or a sub-heading (### and lower).
type item struct {
	block
	heading *rag.Heading
}

type section struct {
	heading rag.Heading
	items   []item
}

// Sizes are a chunk's sizes, in cl100k tokens.
type Sizes struct {
	Target  int // what a split aims at
	Max     int // never exceeded, but by a single oversized code block
	Min     int // smaller chunks join a neighbour of the same page
	Overlap int // how much of a chunk's end starts the next one
}

// Place is where the site puts a page: what its chunks name.
type Place struct {
	Path         string // the page's file path without extension: chunk ids derive from it
	ChapterID    string
	Route        string // the page's path on the site
	ModuleID     string
	ModuleTitle  string
	ChapterTitle string // the title the site gives the page
}

type chapter struct {
	at       Place
	title    string
	sections []section
}

// Chunks cuts the page into chunks that name the place the site gives it.
// Counting the tokens of an 8 MiB page takes seconds: it stops, returning
// nil, as soon as ctx is done.
func (p *Page) Chunks(ctx context.Context, at Place, s Sizes) []rag.Chunk {
	ch := parseChapter(ctx, p, at)
	if ch == nil {
		return nil
	}
	return ch.chunks(ctx, s)
}

// parseChapter reads a page into sections: the text before the first
// `##` is a section named after the chapter, every `##` starts one.
func parseChapter(ctx context.Context, p *Page, at Place) *chapter {
	ch := &chapter{at: at, title: at.ChapterTitle}
	blocks := p.blocks
	slugs := Slugger{}
	anchor := func(b block) string {
		if b.custom != "" {
			return slugs.Custom(b.custom)
		}
		return slugs.Slug(b.title)
	}
	cur := &section{heading: rag.Heading{Level: 1, Text: ch.title}}
	skipBelow := 0 // while > 0, headings deeper than this are left out too
	for _, b := range blocks {
		if ctx.Err() != nil {
			return nil
		}
		if b.kind == kindHeading {
			a := anchor(b)
			if skipBelow > 0 && b.level > skipBelow {
				continue
			}
			skipBelow = 0
			if b.level == 1 {
				continue
			}
			if isLeftOut(b.title) {
				skipBelow = b.level
				if b.level == 2 {
					ch.sections = append(ch.sections, *cur)
					cur = &section{} // an empty, dropped section
				}
				continue
			}
			h := rag.Heading{Level: b.level, Text: b.title, Anchor: a}
			if b.level == 2 {
				ch.sections = append(ch.sections, *cur)
				cur = &section{heading: h}
				continue
			}
			cur.items = append(cur.items, item{heading: &h})
			continue
		}
		if skipBelow > 0 || cur.heading.Text == "" {
			continue
		}
		b.tokens = CountTokens(b.text)
		cur.items = append(cur.items, item{block: b})
	}
	ch.sections = append(ch.sections, *cur)
	kept := ch.sections[:0]
	for _, s := range ch.sections {
		if s.heading.Text != "" && hasContent(s.items) {
			kept = append(kept, s)
		}
	}
	ch.sections = kept
	return ch
}

func hasContent(items []item) bool {
	for _, it := range items {
		if it.heading == nil {
			return true
		}
	}
	return false
}

// piece is a run of one section's items that goes into one chunk.
type piece struct {
	sec   *section
	items []item
	// cont is the sub-heading a piece continues under when a split fell
	// inside a sub-section; it is repeated at the piece's top.
	cont   *rag.Heading
	tokens int
	// merged are small pieces of later sections joined to this one.
	merged []piece
}

func itemTokens(it item) int {
	if it.heading != nil {
		return 2 + CountTokens(it.heading.Text)
	}
	return it.tokens + 1
}

// chunks cuts the chapter into chunks. A long page takes a second or two:
// it stops, returning nil, as soon as ctx is done, so SIGTERM is heard
// within a section, not at the end of the page (Load then returns ctx's
// error).
func (ch *chapter) chunks(ctx context.Context, o Sizes) []rag.Chunk {
	moduleTitle := ch.at.ModuleTitle
	header := func(sec string) string {
		return "[Module: " + moduleTitle + "]\n[Chapter: " + ch.title + "]\n[Section: " + sec + "]\n\n"
	}
	var pieces []piece
	for si := range ch.sections {
		if ctx.Err() != nil {
			return nil
		}
		sec := &ch.sections[si]
		budget := o.Max - CountTokens(header(sec.heading.Text))
		total := 0
		for _, it := range sec.items {
			total += itemTokens(it)
		}
		if total <= budget {
			pieces = append(pieces, piece{sec: sec, items: sec.items, tokens: total})
			continue
		}
		pieces = append(pieces, splitSection(sec, budget, o.Target)...)
	}
	pieces = mergeSmall(pieces, o)

	var out []rag.Chunk
	perSection := map[string]int{}
	var prevTail string
	var prevTailHeading *rag.Heading
	for i, p := range pieces {
		if ctx.Err() != nil {
			return nil
		}
		body, headings := renderPiece(p, i > 0 && pieces[i-1].sec == p.sec)
		text := header(p.sec.heading.Text)
		if prevTail != "" {
			lead := prevTail
			if prevTailHeading != nil && !sameHeading(prevTailHeading, firstHeading(p)) {
				// The overlap sits under its own heading, and the chunk's
				// content under the chunk's: say both, so no sentence is
				// attributed to the wrong section.
				lead = strings.Repeat("#", max(prevTailHeading.Level, 2)) + " " + prevTailHeading.Text + "\n\n" + prevTail
				headings = append([]rag.Heading{headings[0], *prevTailHeading}, headings[1:]...)
				if !strings.HasPrefix(body, "#") {
					fh := firstHeading(p)
					body = strings.Repeat("#", max(fh.Level, 2)) + " " + fh.Text + "\n\n" + body
				}
			}
			if CountTokens(text+lead+"\n\n"+body) <= o.Max {
				body = lead + "\n\n" + body
			} else if prevTailHeading != nil && !sameHeading(prevTailHeading, firstHeading(p)) {
				headings = append(headings[:1], headings[2:]...)
			}
		}
		text += body
		key := p.sec.heading.Text
		c := rag.Chunk{
			ID:             uuid.NewSHA1(idSpace, []byte(ch.at.Path+"\x00"+key+"\x00"+strconv.Itoa(perSection[key]))).String(),
			Text:           text,
			ModuleID:       ch.at.ModuleID,
			ChapterID:      ch.at.ChapterID,
			PagePath:       ch.at.Route,
			SectionHeading: p.sec.heading.Text,
			ChunkIndex:     len(out),
			Anchor:         p.sec.heading.Anchor,
			ChapterPath:    ch.at.Path,
			ModuleTitle:    moduleTitle,
			ChapterTitle:   ch.title,
			Headings:       dedupe(headings),
		}
		perSection[key]++
		out = append(out, c)
		prevTail, prevTailHeading = tail(p, o.Overlap)
	}
	return out
}

func sameHeading(a, b *rag.Heading) bool {
	return a != nil && b != nil && a.Text == b.Text && a.Level == b.Level
}

// firstHeading is the heading the first content of a piece sits under.
func firstHeading(p piece) *rag.Heading {
	if p.cont != nil {
		return p.cont
	}
	if len(p.items) > 0 && p.items[0].heading != nil {
		return p.items[0].heading
	}
	return &p.sec.heading
}

func dedupe(hs []rag.Heading) []rag.Heading {
	var out []rag.Heading
	seen := map[string]bool{}
	for _, h := range hs {
		k := h.Text + "\x00" + h.Anchor
		if !seen[k] {
			seen[k] = true
			out = append(out, h)
		}
	}
	return out
}

// renderPiece writes a piece as Markdown and lists its headings. A piece
// merged into a chunk after another section's starts with its `##` line.
func renderPiece(p piece, continued bool) (string, []rag.Heading) {
	var parts []string
	headings := []rag.Heading{p.sec.heading}
	if p.cont != nil {
		parts = append(parts, strings.Repeat("#", p.cont.Level)+" "+p.cont.Text)
		headings = append(headings, *p.cont)
	}
	for _, it := range p.items {
		if it.heading != nil {
			parts = append(parts, strings.Repeat("#", it.heading.Level)+" "+it.heading.Text)
			headings = append(headings, *it.heading)
			continue
		}
		parts = append(parts, it.text)
	}
	for _, m := range p.merged {
		parts = append(parts, "## "+m.sec.heading.Text)
		headings = append(headings, m.sec.heading)
		b, hs := renderPiece(m, false)
		parts = append(parts, b)
		headings = append(headings, hs[1:]...)
	}
	return strings.Join(parts, "\n\n"), headings
}
