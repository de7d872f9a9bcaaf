package page

import (
	"strings"
	"unicode/utf8"

	"github.com/textbook-rag/rag"
)

// splitSection cuts a section too big for one chunk: at its `###`
// sub-sections first, then at block boundaries. Pieces aim at the target
// size and stay within budget; a single block over budget (a long code
// block, a long list) becomes a piece of its own, since code is never
// split, but a text block over wholeTextBlocks budgets is cut first (see
// cutText).
func splitSection(sec *section, budget, target int) []piece {
	soft := target * 4 / 3
	var groups [][]item
	for _, it := range sec.items {
		if len(groups) == 0 || (it.heading != nil && it.heading.Level == 3) {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], it)
	}
	var out []piece
	cur := piece{sec: sec}
	flush := func() {
		if len(cur.items) > 0 {
			out = append(out, cur)
		}
		cur = piece{sec: sec}
	}
	for _, g := range groups {
		gt := 0
		for _, it := range g {
			gt += itemTokens(it)
		}
		if gt > budget {
			flush()
			out = append(out, splitBlocks(sec, g, budget, soft)...)
			continue
		}
		if cur.tokens > 0 && cur.tokens+gt > soft {
			flush()
		}
		cur.items = append(cur.items, g...)
		cur.tokens += gt
	}
	flush()
	return out
}

// splitBlocks packs a sub-section's blocks into pieces; pieces after the
// first repeat the sub-heading they continue under.
func splitBlocks(sec *section, items []item, budget, soft int) []piece {
	var head *rag.Heading
	if len(items) > 0 && items[0].heading != nil {
		head = items[0].heading
	}
	var out []piece
	cur := piece{sec: sec}
	for _, it := range cutText(items, wholeTextBlocks*budget, soft) {
		t := itemTokens(it)
		if cur.tokens > 0 && (cur.tokens+t > soft || cur.tokens+t > budget) {
			out = append(out, cur)
			cur = piece{sec: sec, cont: head}
			if head != nil {
				cur.tokens = itemTokens(item{heading: head})
			}
		}
		cur.items = append(cur.items, it)
		cur.tokens += t
	}
	if len(cur.items) > 0 {
		out = append(out, cur)
	}
	return out
}

// mergeSmall joins pieces under the minimum size to a neighbour of the
// same chapter — the previous one when it has room, else the next.
func mergeSmall(pieces []piece, o Sizes) []piece {
	room := func(a, b piece) bool { return a.tokens+b.tokens+8 <= o.Max-40 }
	var out []piece
	for i := 0; i < len(pieces); i++ {
		p := pieces[i]
		if p.tokens >= o.Min {
			out = append(out, p)
			continue
		}
		if n := len(out); n > 0 && room(out[n-1], p) {
			out[n-1] = join(out[n-1], p)
			continue
		}
		if i+1 < len(pieces) && room(p, pieces[i+1]) {
			pieces[i+1] = join(p, pieces[i+1])
			continue
		}
		out = append(out, p)
	}
	return out
}

// join appends b to a: as more items when b continues a's section, else as
// a merged section of its own.
func join(a, b piece) piece {
	last := &a
	if n := len(a.merged); n > 0 {
		last = &a.merged[n-1]
	}
	if last.sec == b.sec && len(b.merged) == 0 {
		if b.cont != nil {
			last.items = append(last.items, item{heading: b.cont})
		}
		last.items = append(last.items, b.items...)
	} else {
		a.merged = append(a.merged, b)
	}
	a.tokens += b.tokens + 4
	return a
}

// tail is the end of a piece that starts the next chunk: whole trailing
// sentences of its last text block, about n tokens, and the heading that
// text sits under. A piece ending in code gives no overlap: code is never
// cut.
func tail(p piece, n int) (string, *rag.Heading) {
	if n <= 0 {
		return "", nil
	}
	for len(p.merged) > 0 {
		p = p.merged[len(p.merged)-1]
	}
	if len(p.items) == 0 {
		return "", nil
	}
	last := p.items[len(p.items)-1]
	if last.heading != nil || last.kind != kindText {
		return "", nil
	}
	head := &p.sec.heading
	if p.cont != nil {
		head = p.cont
	}
	for _, it := range p.items {
		if it.heading != nil {
			head = it.heading
		}
	}
	lines := strings.Split(last.text, "\n")
	// A table or list keeps whole lines; prose keeps whole sentences.
	var units []string
	if len(lines) > 1 {
		// A list item may hold fenced code: the overlap starts after
		// its last fence, so that the next chunk never opens inside a
		// code block (and takes its closing fence for an opening one).
		units = lines[afterLastFence(lines):]
		if len(units) == 0 {
			return "", nil
		}
	} else {
		units = sentences(last.text)
	}
	var picked []string
	total := 0
	for i := len(units) - 1; i >= 0 && total < n; i-- {
		t := CountTokens(units[i])
		if total > 0 && total+t > 2*n {
			break
		}
		picked = append([]string{units[i]}, picked...)
		total += t
	}
	if total > 2*n || strings.HasPrefix(strings.TrimSpace(picked[0]), "|") {
		return "", nil
	}
	sep := " "
	if len(lines) > 1 {
		sep = "\n"
	}
	return strings.Join(picked, sep), head
}

// afterLastFence returns the index of the line after a text's last code
// fence line, 0 when it has none.
func afterLastFence(lines []string) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(lines[i]); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			return i + 1
		}
	}
	return 0
}

// sentences splits prose after ". ", "! " and "? ".
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' {
			out = append(out, strings.TrimSpace(s[start:i+1]))
			start = i + 2
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// wholeTextBlocks is how many chunk budgets a text block may hold and
// still be one chunk: a long list or table of a real book (up to 3,200
// tokens in the shared books) stays whole, as it always has, and only a
// paragraph beyond any book's is cut.
const wholeTextBlocks = 4

// cutText replaces each text block over limit tokens by its parts of at
// most soft tokens (see splitText): a paragraph, however long, ends in
// chunks of a bounded size.
func cutText(items []item, limit, soft int) []item {
	var out []item
	for _, it := range items {
		if it.heading != nil || it.kind != kindText || itemTokens(it) <= limit {
			out = append(out, it)
			continue
		}
		for _, part := range splitText(it.text, soft) {
			out = append(out, item{block: block{kind: kindText, text: part, tokens: CountTokens(part)}})
		}
	}
	return out
}

// textCuts are the ways splitText cuts text, coarsest first, each with
// the separator its parts are joined with again.
var textCuts = []struct {
	cut func(string) []string
	sep string
}{
	{func(s string) []string { return strings.Split(s, "\n") }, "\n"}, // a list keeps whole items
	{sentences, " "},
	{strings.Fields, " "},
	{byteRuns, ""},
}

// splitText cuts text into parts of at most limit tokens: at line breaks,
// then after sentences, then between words, and a word longer than limit
// at character boundaries. Units are packed in order, as many to a part
// as fit.
func splitText(s string, limit int) []string {
	return packUnits(s, limit, 0)
}

func packUnits(s string, limit, level int) []string {
	c := textCuts[level]
	var out []string
	var cur []string
	n := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, c.sep))
		}
		cur, n = nil, 0
	}
	for _, u := range c.cut(s) {
		if strings.TrimSpace(u) == "" && c.sep != "" {
			continue
		}
		t := CountTokens(u)
		if t > limit && level+1 < len(textCuts) {
			flush()
			out = append(out, packUnits(u, limit, level+1)...)
			continue
		}
		if n > 0 && n+t+1 > limit {
			flush()
		}
		cur = append(cur, u)
		n += t + 1
	}
	flush()
	return out
}

// byteRuns cuts a run without spaces into pieces of maxRunBytes at most,
// at character boundaries: a token is at least a byte, so each is within
// any limit of maxRunBytes tokens or more.
func byteRuns(s string) []string {
	var out []string
	for len(s) > maxRunBytes {
		i := maxRunBytes
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return append(out, s)
}

// maxRunBytes is the size of the pieces of a run without spaces.
const maxRunBytes = 256
