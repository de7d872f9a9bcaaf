package page

import (
	"strings"

	"github.com/textbook-rag/rag"
)

// splitSection cuts a section too big for one chunk: at its `###`
// sub-sections first, then at block boundaries. Pieces aim at the target
// size and stay within budget; a single block over budget (a long code
// block) becomes a piece of its own, since code is never split.
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
	for _, it := range items {
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
