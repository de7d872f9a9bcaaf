package answer

import (
	"math"
	"strings"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

// A candidate passage is a window of up to maxWindow consecutive units of
// one section of a retrieved chunk. The answerer describes every
// candidate by the named features below and lets the fitted model (see
// Model) turn them into the probability that quoting the candidate's
// section answers the question. None of the features carries a weight of
// its own: how much each counts is learned by `textbook-rag fit` from the
// labelled books.

// Feature names one signal; Doc says what it measures and why it may
// matter. Features lists them in the order of the model's vector.
type Feature struct {
	Name string
	Doc  string
}

// Indices into a feature vector.
const (
	fText = iota
	fHeading
	fLead
	fSection
	fChunk
	fRelated
	fTermsStated
	fSectionText
	fTextGap
	fNamedGap
	fSectionGap
	fHeadingNamed
	fHeadingPrecision
	fUnitBest
	fSpan
	fChars
	fRetrieval
	fRank
	fBM25
	fNumberYes
	fNumberNo
	fTypeYes
	fTypeNo
	fDefines
	fNamesAPI
	fListYes
	fListNo
	fCodeWanted
	fCodeUnwanted
	fCodeLines
	fStepsYes
	fItem
	fRow
	fLabel
	fGoal
	fSummary
	fOverview
	fAsks
	fIntro
	fDepth
	fSectionUnits
	fFirstInSection
	fUnknown
	fTerms
	fQNumber
	fQList
	fQCode
	fQDefinition
	fQHow
	fUnknownName
	fTitleNamed
	fPhrase
	nFeatures
)

// Features documents every signal the answerer's model weighs, in vector
// order. "Share" is always of the question's information: its words
// weighted by how rare each is in the book.
var Features = [nFeatures]Feature{
	fText:             {"text_share", "share stated in the passage's own text"},
	fHeading:          {"heading_share", "share not in the text but named by the passage's own heading"},
	fLead:             {"lead_share", "share found only in the line that introduces the passage (\"Types:\")"},
	fSection:          {"section_share", "share found only in the chunk's section heading or chapter title"},
	fChunk:            {"chunk_share", "share found only elsewhere in the chunk's text"},
	fRelated:          {"related_share", "share matched only by words the book uses in the same places (co-occurrence strength)"},
	fTermsStated:      {"terms_stated", "fraction of the question's words (unweighted) the text states"},
	fSectionText:      {"section_text_share", "share stated anywhere in the text of the passage's section within the chunk"},
	fTextGap:          {"text_gap", "text_share minus the best text_share of any candidate for the question (0 for the best)"},
	fNamedGap:         {"named_gap", "text_share + heading_share minus the best such sum among candidates"},
	fSectionGap:       {"section_gap", "section_text_share minus the best among candidates"},
	fHeadingNamed:     {"heading_named", "share named by the passage's own heading, whether or not the text states it too"},
	fHeadingPrecision: {"heading_precision", "share of the heading's own words that the question uses: a heading about just what was asked"},
	fUnitBest:         {"best_unit_share", "the largest share one unit (sentence, item, row, code block) of the section states: the words stand together"},
	fSpan:             {"span", "units in the window beyond the first (0-2): each further unit must earn its place"},
	fChars:            {"log_chars", "log(1 + characters of the window)"},
	fRetrieval:        {"retrieval_score", "the chunk's score as the built-in retriever counts it (the spec's scale), worked out from the book whichever retriever ran"},
	fRank:             {"retrieval_rank", "1/(1 + the chunk's rank among the confident chunks, in the order the retriever returned them)"},
	fBM25:             {"bm25", "the chunk's BM25 score (k1 1.2, b 0.75) over the question's words, divided by its maximum"},
	fNumberYes:        {"number_stated", "the question asks how many/much/fast and the window states a number the question does not"},
	fNumberNo:         {"number_missing", "the question asks for a quantity and the window states no new number"},
	fTypeYes:          {"answer_type_stated", "the question wants a price or a date and the window states one"},
	fTypeNo:           {"answer_type_missing", "the question wants a price or a date and the window states none"},
	fDefines:          {"defines_subject", "a \"what is X\" question and the window defines X (\"X is ...\", \"**X**: ...\")"},
	fNamesAPI:         {"names_api", "the window uses an identifier spelled from the question's words (create_publisher)"},
	fListYes:          {"list_for_list", "the question asks for several things of a kind and the window is a list item or table row"},
	fListNo:           {"prose_for_list", "the question asks for several things of a kind and the window is not a list or table"},
	fCodeWanted:       {"code_wanted", "the question asks for a command, API or configuration and the window holds code"},
	fCodeUnwanted:     {"code_unwanted", "the window holds code the question did not ask for"},
	fCodeLines:        {"code_lines", "log(1 + lines) of the window's code: a long program holds many words by chance"},
	fStepsYes:         {"steps_for_how", "a \"how do I\" question and the window is a numbered step or code"},
	fItem:             {"kind_item", "the window starts with a list item"},
	fRow:              {"kind_row", "the window starts with a table row"},
	fLabel:            {"kind_label", "the window starts with a short line ending in ':'"},
	fGoal:             {"in_goals", "the section points elsewhere: learning objectives, prerequisites, next steps"},
	fSummary:          {"in_summary", "the section restates: summary, overview, key takeaways, introduction"},
	fOverview:         {"in_module_index", "the chunk is a module's index page, which restates its chapters"},
	fAsks:             {"asks_reader", "the window puts a question to the reader: quiz, exercise, a sentence ending in '?'"},
	fIntro:            {"in_chapter_intro", "the window sits before the chapter's first section heading"},
	fDepth:            {"heading_depth", "the heading's level below ## (0 for ##, 1 for ###, ...)"},
	fSectionUnits:     {"log_section_units", "log(1 + units of the section in the chunk): how specific the section is"},
	fFirstInSection:   {"first_in_section", "the window starts the section"},
	fUnknown:          {"unknown_share", "share of the question's information in words the book never uses"},
	fTerms:            {"log_question_terms", "log(1 + the question's content words)"},
	fQNumber:          {"asks_number", "the question asks for a quantity"},
	fQList:            {"asks_list", "the question asks for several things of a kind"},
	fQCode:            {"asks_code", "the question asks for a command, API or configuration"},
	fQDefinition:      {"asks_definition", "the question asks only what one term is (\"What is a ROS 2 topic?\", not \"what is the total latency?\")"},
	fQHow:             {"asks_how", "the question asks how to do something"},
	fUnknownName:      {"unknown_name", "the question names something the book never mentions: an acronym, an identifier or a capitalised name (AMCL, static_transform_publisher, Hidden Markov)"},
	fTitleNamed:       {"title_named", "share named by the title of the passage's page: a page about the question's subject, whichever of its headings matched"},
	fPhrase:           {"phrase_stated", "share of the question's adjacent word pairs (after its opening, \"what is a\") that the window's text, its heading or its page's title states as adjacent words: \"a do while loop\" is a phrase, not three words"},
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

// bm25 constants are the method's customary defaults, not fitted: the
// model weighs the score that results.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25 scores a chunk against the question's words, divided by the
// score of a chunk holding every word often: a share in [0, 1].
func (ans *Answerer) bm25(q analysis.Query, c rag.Chunk) float64 {
	var terms map[string]int
	length := 0
	if i, ok := ans.book.Position(c.ID); ok && ans.book.Chunks()[i].Text == c.Text {
		terms, length = ans.book.Terms(i), ans.book.Length(i)
	} else {
		terms = map[string]int{}
		for _, t := range analysis.Tokenize(c.Text) {
			if !analysis.Stopwords[t.Word] {
				terms[t.Stem]++
				length++
			}
		}
	}
	norm := bm25K1 * (1 - bm25B + bm25B*float64(length)/max(ans.book.AvgLength(), 1))
	var got, most float64
	for _, t := range q.Terms {
		df := float64(ans.book.DF(t.Stem))
		idf := math.Log(1 + (ans.book.N()-df+0.5)/(df+0.5))
		tf := float64(terms[t.Stem])
		got += idf * tf * (bm25K1 + 1) / (tf + norm)
		most += idf * (bm25K1 + 1)
	}
	if most == 0 {
		return 0
	}
	return got / most
}

// lexicalScore is the chunk's coverage of the question as the built-in
// retriever counts it (its own words, or its chapter's at
// chapterCredit), on the spec's scale. It is worked out here from the
// book's statistics, whichever retriever found the chunk, so that the
// feature means the same under every retriever.
func (ans *Answerer) lexicalScore(q analysis.Query, c rag.Chunk) float64 {
	var terms map[string]int
	if i, ok := ans.book.Position(c.ID); ok && ans.book.Chunks()[i].Text == c.Text {
		terms = ans.book.Terms(i)
	}
	var own map[string]bool
	if terms == nil {
		own = analysis.StemSet(c.Text)
	}
	ch := ans.book.ChapterStems(c.ChapterPath)
	return calibrated(q.Coverage(func(s string) float64 {
		if terms[s] > 0 || own[s] {
			return 1
		}
		if ch[s] {
			return chapterCredit
		}
		return 0
	}))
}

// calibrated maps coverage onto the refusal spec's scale as the built-in
// retriever (package lexical) did when the model was fitted: a copy, so
// that the retrieval_score feature stays what the model weighs when the
// retriever's own scale is refitted.
func calibrated(coverage float64) float64 {
	switch {
	case coverage <= 0.4:
		return coverage * 0.5 / 0.4
	case coverage <= 0.6:
		return 0.5 + (coverage-0.4)*(0.2/0.2)
	default:
		return 0.7 + (coverage-0.6)*(0.3/0.4)
	}
}

// chapterCredit is what a question word is worth to lexicalScore when the
// chunk lacks it but its chapter uses it, as the built-in retriever counts
// it.
const chapterCredit = 0.5

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
		bm[i] = ans.bm25(q, c.Chunk)
		lex[i] = ans.lexicalScore(q, c.Chunk)
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
			x[fIntro] = b2f(first.heading.Level < 2 || first.heading.Text == c.ChapterTitle)
			x[fDepth] = float64(min(max(first.heading.Level-2, 0), 3))
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

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// isOrdered reports a numbered list item ("1. ...", "2) ...").
func isOrdered(text string) bool {
	i := 0
	for i < len(text) && text[i] >= '0' && text[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(text) && (text[i] == '.' || text[i] == ')') && text[i+1] == ' '
}
