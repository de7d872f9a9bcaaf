package answer

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

// The pick: the model gives each candidate the probability that quoting
// its section answers, and the most probable section is quoted when that
// reaches the model's threshold (or, for a "what is X" question, a
// section that defines X in so many words).

// Evidence returns the passages of the chunks that answer the question,
// in book order, or nil when no part of them does. Every window of the
// chunks is a candidate; the model gives each the probability that it
// answers, and the best is quoted when that probability reaches the
// model's threshold. It never returns text that is not in the chunks.
func (ans *Answerer) Evidence(ctx context.Context, question *analysis.Question, chunks []rag.ScoredChunk) []rag.Passage {
	r, units, cands := ans.prepare(ctx, question, chunks)
	best := ans.best(cands)
	// A threshold of 1 answers nothing (a stale model: see DefaultModel),
	// definitions included.
	if best == nil || best.p < ans.model.Threshold {
		if best = definer(r, units, cands); best == nil || ans.model.Threshold >= 1 {
			return nil
		}
	}
	return ans.quote(units, chunks, windowsOf(cands, best.section), r.wantsList)
}

// definer returns, for a question that asks what a term is, the most
// probable candidate whose section defines that term in so many words
// (see definesFocus): where the model is unsure, a book's own marked
// definition answers "what is X?". It returns nil for other questions,
// or when no candidate defines the term. cands must be scored.
func definer(r reading, units []*unit, cands []candidate) *candidate {
	if !r.hasFocus {
		return nil
	}
	defines := map[sectionKey]bool{}
	for i, u := range units {
		// A glossary's entry is headed by its term and defined by its
		// first line.
		entry := u.glossary && (i == 0 || keyOf(units[i-1]) != keyOf(u)) && probeKey(headingTerm(u.heading.Text)) == termKey(r.focus.stems)
		// So is an entry of a definition list or of a table of terms.
		listed := false
		if t := entryTerm(u); t != "" {
			listed = probeKey(t) == termKey(r.focus.stems)
		}
		if definesFocus(u, r.focus) || entry || listed {
			defines[keyOf(u)] = true
		}
	}
	sum := map[string]float64{}
	for _, c := range cands {
		sum[c.group] += c.p
	}
	var best *candidate
	for i, c := range cands {
		if defines[keyOf(units[c.w.from])] && (best == nil || sum[c.group] > sum[best.group]) {
			best = &cands[i]
		}
	}
	return best
}

// windowsOf returns the windows of a section's candidates, the one that
// states most of the question first: a section that overlapping chunks
// both hold is quoted from all of them, as Pick chose it from all of
// them. The order does not depend on the model, so that the fit's labels
// do not either.
func windowsOf(cands []candidate, section string) []window {
	var ws []window
	for _, c := range cands {
		if c.section == section {
			ws = append(ws, c.w)
		}
	}
	sort.SliceStable(ws, func(a, b int) bool { return ws[a].score > ws[b].score })
	return ws
}

// Candidate is a passage the answerer could quote, as the fit command
// sees it: its features and the passages quoting it would return.
type Candidate struct {
	Features []float64
	Passages []rag.Passage
	// Section names the candidate's section in the book; Group what its
	// probability adds up with (see Pick): its section, or the first
	// section of the same text.
	Section, Group string
}

// Candidates lists every candidate passage of the chunks for a question,
// with what quoting each would return. The fit command labels them; the
// answerer itself only quotes the best.
func (ans *Answerer) Candidates(ctx context.Context, question *analysis.Question, chunks []rag.ScoredChunk) []Candidate {
	r, units, cands := ans.prepare(ctx, question, chunks)
	quotes := map[string][]rag.Passage{}
	out := make([]Candidate, len(cands))
	for i, c := range cands {
		q, ok := quotes[c.section]
		if !ok {
			q = ans.quote(units, chunks, windowsOf(cands, c.section), r.wantsList)
			quotes[c.section] = q
		}
		out[i] = Candidate{Features: c.x, Passages: q, Section: c.section, Group: c.group}
	}
	return out
}

// prepare reads the question and lists the chunks' candidates.
func (ans *Answerer) prepare(ctx context.Context, question *analysis.Question, chunks []rag.ScoredChunk) (reading, []*unit, []candidate) {
	question = ans.own(question)
	r := ans.readQuestion(question, question.Query)
	if len(r.q.Terms) == 0 {
		return r, nil, nil
	}
	units := ans.unitsOf(chunks)
	cands := withQuantities(r, units, ans.candidates(r, units, chunks))
	if ans.meaning != nil {
		ans.addMeaning(ctx, question.Text, units, chunks, cands)
	}
	return r, units, cands
}

// best scores the candidates and returns the most probable, the first
// in book order on a tie; nil when there are none.
func (ans *Answerer) best(cands []candidate) *candidate {
	if len(cands) == 0 {
		return nil
	}
	// A model fitted without meaning weighs the word features alone;
	// a question whose vectors could not be had is weighed so too.
	model := ans.model
	if model.Meaning() && len(cands[0].x) < len(model.Features) {
		model = DefaultModel()
	}
	xs := make([][]float64, len(cands))
	groups := make([]string, len(cands))
	for i, c := range cands {
		xs[i], groups[i] = c.x[:len(model.Features)], c.group
	}
	// Each candidate keeps its own probability under the model (the
	// definitions rule and --explain read it); the pick is judged with
	// the members too.
	probs := model.Probs(xs)
	for i := range cands {
		cands[i].p = probs[i]
	}
	i, p := model.Pick(xs, probs, groups)
	best := cands[i]
	best.p = p
	return &best
}

// Pick chooses what to quote from candidates' probabilities: the section
// (named by sections[i]) most likely to answer, counting every candidate
// of it (overlapping chunks repeat a section), and in it the most
// probable candidate, the first on a tie. It returns that candidate and
// its section's probability.
func Pick(probs []float64, sections []string) (int, float64) {
	sum := map[string]float64{}
	for i, p := range probs {
		sum[sections[i]] += p
	}
	best := -1
	for i, p := range probs {
		if best < 0 {
			best = i
			continue
		}
		ps, pb := sum[sections[i]], sum[sections[best]]
		if ps > pb || ps == pb && sections[i] == sections[best] && p > probs[best] {
			best = i
		}
	}
	return best, sum[sections[best]]
}

// ExplainEvidence lists the most probable candidate passages for a
// question with their probability and strongest features; the CLI's
// --explain flag prints it.
func (ans *Answerer) ExplainEvidence(ctx context.Context, question string, chunks []rag.ScoredChunk, n int) string {
	_, units, cands := ans.prepare(ctx, ans.Read(question), chunks)
	ans.best(cands)
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].p > cands[b].p })
	var b strings.Builder
	b.WriteString("threshold " + fmtFloat(ans.model.Threshold) + "\n")
	for i, c := range cands {
		if i >= n {
			break
		}
		u := units[c.w.from]
		var t []string
		for _, v := range units[c.w.from:c.w.to] {
			t = append(t, v.text)
		}
		text := strings.ReplaceAll(strings.Join(t, " "), "\n", " / ")
		if len(text) > explainChars {
			text = text[:explainChars] + "…"
		}
		b.WriteString(fmtFloat(c.p) + " " + chunks[u.chunk].ChapterPath + " › " + u.heading.Text + " | " + text + "\n")
	}
	b.WriteString(ans.explainLeaders(cands))
	return b.String()
}

// explainLeaders says why the leading section beat the second: what
// each feature added to the two sections' scores (weight times the
// standardised value), the largest differences first. cands are sorted
// by probability.
func (ans *Answerer) explainLeaders(cands []candidate) string {
	var first, second *candidate
	for i := range cands {
		switch {
		case first == nil:
			first = &cands[i]
		case cands[i].group != first.group:
			second = &cands[i]
		}
		if second != nil {
			break
		}
	}
	if second == nil {
		return ""
	}
	m := ans.model
	type part struct {
		name   string
		a, b   float64
		differ float64
	}
	var parts []part
	for i, f := range Features {
		a := m.Weights[i] * (first.x[i] - m.Mean[i]) / m.Scale[i]
		b := m.Weights[i] * (second.x[i] - m.Mean[i]) / m.Scale[i]
		if a != b {
			parts = append(parts, part{f.Name, a, b, a - b})
		}
	}
	sort.SliceStable(parts, func(i, j int) bool { return math.Abs(parts[i].differ) > math.Abs(parts[j].differ) })
	var b strings.Builder
	b.WriteString("why " + first.section + " beat " + second.section + " (feature: first, second, difference):\n")
	for i, p := range parts {
		if i == explainFeatures {
			break
		}
		fmt.Fprintf(&b, "  %-20s %+.2f %+.2f %+.2f\n", p.name, p.a, p.b, p.differ)
	}
	return b.String()
}

// ExplainEvidence prints a candidate's first explainChars characters and
// the explainFeatures features that tell the two leading sections apart
// most: a line each on a terminal.
const (
	explainChars    = 140
	explainFeatures = 12
)

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
