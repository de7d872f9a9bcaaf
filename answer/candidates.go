package answer

import (
	"math"
	"strings"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/lexical"
)

// The candidates stage: every window of up to maxWindow units of one
// section is described by the named features (features.go), and a
// section's window that states most of the question stands for it. The
// pick (pick.go) weighs them with the model; the quote (quote.go) never
// sees them.

// maxHeadingDepth is the deepest heading_depth: headings below #####
// are rare and count as #####.
const maxHeadingDepth = 3

// maxWindow is the most units a candidate window spans: an answer often
// takes two or three sentences to state.
const maxWindow = 3

// unitFacts are the per-unit signals of a search.
type unitFacts struct {
	match    [][]float64 // match[i][k]: unit i's credit for stem slot k (the selection's rule)
	namesAPI []bool      // uses an identifier spelled from the question's words
	defines  []bool      // defines the question's subject
	typed    []bool      // states the answer type the question wants
}

// scoreUnits gives every unit its score, the share of the question's
// information its text states (which orders the passages of a quoted
// section), and works out the per-unit signals.
func (r reading) scoreUnits(units []*unit) unitFacts {
	sl := r.sl
	f := unitFacts{
		match:    make([][]float64, len(units)),
		namesAPI: make([]bool, len(units)),
		defines:  make([]bool, len(units)),
		typed:    make([]bool, len(units)),
	}
	flat := make([]float64, len(units)*len(sl.stems))
	for i, u := range units {
		m := flat[i*len(sl.stems) : (i+1)*len(sl.stems)]
		for k, s := range sl.stems {
			if u.terms[s] {
				m[k] = 1
			} else {
				m[k] = u.ctx.credit(s)
			}
		}
		f.match[i] = m
		u.score = 0
		for _, t := range r.q.Terms {
			if u.terms[t.Stem] {
				u.score += t.Weight / r.q.Total
			}
		}
		// An identifier spelled out of the question's own words ("create
		// a publisher" -> create_publisher) shows the API asked about; one
		// the question itself names, in any spelling ("LiDAR",
		// humanoid_controller for HumanoidController), shows nothing more.
		for _, id := range u.idents {
			all := len(id.parts) >= 2 && !r.qstems[id.whole] && !r.qidents[strings.Join(id.parts, "|")]
			for _, p := range id.parts {
				all = all && r.qstems[p]
			}
			if all {
				f.namesAPI[i] = true
				break
			}
		}
		f.defines[i] = r.definition && definesSubject(u, r.qstems)
		f.typed[i] = r.want != nil && r.want.MatchString(u.text)
	}
	return f
}

// candidate is one window with its features and, once scored, the
// model's probability that it answers.
type candidate struct {
	w window
	x []float64
	p float64
	// section is the candidate's chapter and heading: overlapping chunks
	// can hold the same section.
	section string
	// group is what the candidate's probability adds up with: its
	// section, or the first section of the same text (a book may repeat
	// a chapter, in a variant or a second edition: the same text answers
	// the same).
	group string
}

// sectionFacts are what a window's section holds, worked out once per
// section of one search.
type sectionFacts struct {
	// headingPrecision: the share of the heading's words the question
	// uses.
	headingPrecision float64
	terms            map[string]bool
	units            int
	first            int
	bestUnit         float64
	// members are the section's units in order; size the length of
	// their texts joined, a line each (see groupSections).
	members []*unit
	size    int
}

// candidates lists every window of the units with its features. units
// come from unitsOf(chunks).
func (ans *Answerer) candidates(r reading, units []*unit, chunks []rag.ScoredChunk) []candidate {
	q := r.q
	if q.Total == 0 || len(units) == 0 {
		return nil
	}
	f := r.scoreUnits(units)

	// Question-level facts.
	var unknown float64
	for _, t := range q.Terms {
		if !t.Known {
			unknown += t.Weight
		}
	}
	unknown /= q.Total
	bm := make([]float64, len(chunks))
	lex := make([]float64, len(chunks))
	title := make([]float64, len(chunks))
	titleWords := make([]string, len(chunks))
	for i, c := range chunks {
		titleWords[i] = " " + phraseText(c.ChapterTitle) + " "
		bm[i] = lexical.BM25Share(ans.book, q, c.Chunk)
		lex[i] = lexical.Score(ans.book, q, c.Chunk)
		ts := ans.headingStemSet(c.ChapterTitle)
		for _, t := range q.Terms {
			if ts[t.Stem] {
				title[i] += t.Weight / q.Total
			}
		}
	}
	phrase := make([]string, 0, maxWindow+2)
	sections := map[sectionKey]*sectionFacts{}
	for i, u := range units {
		s := sections[keyOf(u)]
		if s == nil {
			s = &sectionFacts{terms: map[string]bool{}, first: i}
			sections[keyOf(u)] = s
			if hs := ans.headingStemSet(u.heading.Text); len(hs) > 0 {
				n := 0
				for h := range hs {
					if r.qstems[h] {
						n++
					}
				}
				s.headingPrecision = float64(n) / float64(len(hs))
			}
		}
		s.units++
		s.members = append(s.members, u)
		s.size += len(u.text) + 1
		for _, t := range q.Terms {
			if u.terms[t.Stem] {
				s.terms[t.Stem] = true
			}
		}
		s.bestUnit = max(s.bestUnit, u.score)
	}

	// A section is quoted whole (see quote), so a section is one
	// candidate: its window that states most of the question, the first
	// of equals, stands for it. Each window's features are worked out in
	// x and kept only when the window stands for its section, so a
	// question allocates per section, not per window.
	at := make(map[sectionKey]int, len(sections))
	secs := make([]candidate, 0, len(sections))
	xs := make([]float64, len(sections)*nFeatures) // the kept vectors
	x := make([]float64, nFeatures)
	best := make([]source, len(q.Terms))
	inText := make([]bool, len(q.Terms))
	related := make([]float64, len(q.Terms))
	for i := range units {
		if units[i].points {
			continue
		}
		clear(best)
		clear(inText)
		clear(related)
		hasNum, hasType, hasList, hasCode, hasSteps := false, false, false, false, false
		defines, api, goal, summary, asks := false, false, false, false, false
		codeLines, chars := 0, 0
		phrase = append(phrase[:0], units[i].headingWords, titleWords[units[i].chunk])
		for j := i; j < len(units) && j < i+maxWindow; j++ {
			u := units[j]
			if keyOf(u) != keyOf(units[i]) || u.points {
				break
			}
			for k, t := range q.Terms {
				if u.terms[t.Stem] {
					inText[k] = true
					continue
				}
				best[k] = max(best[k], u.ctx.source(t.Stem))
				for ri, rel := range t.Related {
					if u.terms[rel.Stem] {
						related[k] = max(related[k], t.Related[ri].Strength)
					}
				}
			}
			hasNum = hasNum || hasNewNumber(u.nums, r.qnums)
			hasType = hasType || f.typed[j]
			hasList = hasList || u.kind == item || u.kind == row
			hasCode = hasCode || u.kind == code
			hasSteps = hasSteps || u.kind == code || u.kind == item && isOrdered(strings.TrimSpace(u.text))
			defines = defines || f.defines[j]
			api = api || f.namesAPI[j]
			goal = goal || u.goal
			summary = summary || u.summary
			asks = asks || u.asks
			if u.kind == code {
				codeLines = max(codeLines, u.lines)
			}
			chars += len(u.text)
			phrase = append(phrase, u.words)

			clear(x)
			stated := 0
			for k, t := range q.Terms {
				share := t.Weight / q.Total
				switch {
				case inText[k]:
					x[fText] += share
					stated++
					continue
				case best[k] == fromHeading:
					x[fHeading] += share
				case best[k] == fromLead:
					x[fLead] += share
				case best[k] == fromSection:
					x[fSection] += share
				case best[k] == fromText:
					x[fChunk] += share
				}
				x[fRelated] += share * related[k]
			}
			x[fTermsStated] = float64(stated) / float64(len(q.Terms))
			sec := sections[keyOf(units[i])]
			for _, t := range q.Terms {
				if sec.terms[t.Stem] {
					x[fSectionText] += t.Weight / q.Total
				}
			}
			x[fUnitBest] = sec.bestUnit
			x[fHeadingPrecision] = sec.headingPrecision
			for _, t := range q.Terms {
				if first := units[i]; first.ctx.near[t.Stem] == fromHeading {
					x[fHeadingNamed] += t.Weight / q.Total
				}
			}
			x[fSpan] = float64(j - i)
			x[fChars] = math.Log1p(float64(chars))
			first := units[i]
			x[fRetrieval] = lex[first.chunk]
			x[fRank] = 1 / (1 + float64(first.chunk))
			x[fBM25] = bm[first.chunk]
			x[fNumberYes] = b2f(q.WantsNumber && hasNum)
			x[fNumberNo] = b2f(q.WantsNumber && !hasNum)
			x[fTypeYes] = b2f(r.want != nil && hasType)
			x[fTypeNo] = b2f(r.want != nil && !hasType)
			x[fDefines] = b2f(defines)
			x[fNamesAPI] = b2f(api)
			x[fListYes] = b2f(r.wantsList && hasList)
			x[fListNo] = b2f(r.wantsList && !hasList)
			x[fCodeWanted] = b2f(r.wantsCode && hasCode)
			x[fCodeUnwanted] = b2f(!r.wantsCode && hasCode)
			x[fCodeLines] = math.Log1p(float64(codeLines))
			x[fStepsYes] = b2f(r.how && hasSteps)
			x[fItem] = b2f(first.kind == item)
			x[fRow] = b2f(first.kind == row)
			x[fLabel] = b2f(first.kind == label)
			x[fGoal] = b2f(goal)
			x[fSummary] = b2f(summary)
			x[fOverview] = b2f(first.overview)
			x[fAsks] = b2f(asks)
			c := chunks[first.chunk]
			x[fIntro] = b2f((first.heading.Level < 2 || first.heading.Text == c.ChapterTitle) && ans.sectioned(c.Chunk))
			x[fDepth] = float64(min(max(first.heading.Level-2, 0), maxHeadingDepth))
			x[fSectionUnits] = math.Log1p(float64(sec.units))
			x[fFirstInSection] = b2f(sec.first == i)
			x[fUnknown] = unknown
			x[fTerms] = math.Log1p(float64(len(q.Terms)))
			x[fQNumber] = b2f(q.WantsNumber)
			x[fQList] = b2f(r.wantsList)
			x[fQCode] = b2f(r.wantsCode)
			x[fQDefinition] = b2f(r.definition)
			x[fQHow] = b2f(r.how)
			x[fUnknownName] = b2f(r.unknownName)
			x[fTitleNamed] = title[first.chunk]
			x[fPhrase] = phraseShare(r.pairs, phrase...)
			w := window{from: i, to: j + 1, score: x[fText]}
			k := keyOf(first)
			if n, ok := at[k]; ok {
				if x[fText] > secs[n].x[fText] {
					copy(secs[n].x, x)
					secs[n].w = w
					secs[n].section = c.ChapterPath + " › " + first.heading.Text
				}
				continue
			}
			kept := xs[len(secs)*nFeatures : (len(secs)+1)*nFeatures : (len(secs)+1)*nFeatures]
			copy(kept, x)
			at[k] = len(secs)
			secs = append(secs, candidate{w: w, x: kept, section: c.ChapterPath + " › " + first.heading.Text})
		}
	}
	groupSections(secs, units, sections)
	// Gaps: how far each candidate falls behind the best for the
	// question, which a probability per passage cannot see by itself.
	var bestText, bestNamed, bestSection float64
	for _, c := range secs {
		bestText = max(bestText, c.x[fText])
		bestNamed = max(bestNamed, c.x[fText]+c.x[fHeading])
		bestSection = max(bestSection, c.x[fSectionText])
	}
	for _, c := range secs {
		c.x[fTextGap] = c.x[fText] - bestText
		c.x[fNamedGap] = c.x[fText] + c.x[fHeading] - bestNamed
		c.x[fSectionGap] = c.x[fSectionText] - bestSection
	}
	return secs
}

// groupSections sets each candidate's group: its own section, or the
// first candidate's whose section has the same text (its units' texts
// joined, a line each). Only sections of the same length are compared,
// and without joining their texts.
func groupSections(secs []candidate, units []*unit, sections map[sectionKey]*sectionFacts) {
	bySize := map[int][]int{}
	for i := range secs {
		secs[i].group = secs[i].section
		f := sections[keyOf(units[secs[i].w.from])]
		for _, j := range bySize[f.size] {
			if sameJoined(f.members, sections[keyOf(units[secs[j].w.from])].members) {
				secs[i].group = secs[j].group
				break
			}
		}
		bySize[f.size] = append(bySize[f.size], i)
	}
}

// sameJoined reports whether the units' texts, each followed by a line
// break, make the same text in a as in b.
func sameJoined(a, b []*unit) bool {
	if len(a) == len(b) {
		same := true
		for i := range a {
			if a[i].text != b[i].text {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	ai, ao, bi, bo := 0, 0, 0, 0 // unit index and offset in its text+"\n"
	for {
		for ai < len(a) && ao > len(a[ai].text) {
			ai, ao = ai+1, 0
		}
		for bi < len(b) && bo > len(b[bi].text) {
			bi, bo = bi+1, 0
		}
		if ai == len(a) || bi == len(b) {
			return ai == len(a) && bi == len(b)
		}
		ca, cb := byte('\n'), byte('\n')
		if ao < len(a[ai].text) {
			ca = a[ai].text[ao]
		}
		if bo < len(b[bi].text) {
			cb = b[bi].text[bo]
		}
		if ca != cb {
			return false
		}
		ao++
		bo++
	}
}
