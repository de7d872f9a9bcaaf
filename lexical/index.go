// Package lexical is the embedded retriever: it learns everything it needs
// from the ingested book (its vocabulary, how rare each word is, which
// words occur together) and scores a question against every chunk with a
// number in [0, 1] that carries the refusal spec's meaning.
//
// The score is a weighted coverage: the share of the question's
// information (each word weighted by how rare it is in the book) that the
// chunk holds. Words the book never uses count against the question at
// full weight, which is what keeps cooking and sport questions far below
// 0.5. Misspelt words (words that are not English) are corrected against
// the book's vocabulary, and a word the chunk lacks can be partly matched
// by a word the book uses in the same places (co-occurrence), which helps
// readers who do not remember the book's terms.
package lexical

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/textbook-rag/rag"
)

var _ rag.Retriever = (*Index)(nil)

// Index is the in-memory retrieval model of one book.
type Index struct {
	chunks []rag.Chunk
	docs   []doc
	df     map[string]int    // stem -> number of chunks holding it
	vocab  map[string]string // surface word -> stem, for spelling repair
	byLen  map[int][]string  // surface words by rune length
	n      float64
	assoc  *associations
	// pos is each chunk's place in the book, by id.
	pos map[string]int
	// units are each chunk's quotable units, split once, by id.
	units map[string][]*unit
	// corrections memoizes spelling repairs of unknown words.
	corrections  sync.Map
	nCorrections atomic.Int64
	// postings lists the chunks holding each stem; termChapters the
	// chapters using it; chapterDocs the chunks of each chapter.
	postings     map[string][]posting
	termChapters map[string][]string
	chapterDocs  map[string][]int
	// chapter maps a chunk's ChapterPath to the stems used anywhere in
	// that chapter.
	chapter map[string]map[string]bool
	// avgLen is the mean chunk length in words, for BM25.
	avgLen float64
	// model weighs the answerer's candidate passages.
	model *Model
}

// posting is one chunk holding a stem, with what ranking needs of it.
type posting struct {
	doc  int
	tf   int  // the stem's count in the chunk
	head bool // the stem names the chunk's headings
}

type doc struct {
	terms map[string]int // stem -> count in the chunk (body and headings)
	// head holds the stems of the chunk's section heading and
	// sub-headings: a question naming them is about this chunk.
	head   map[string]bool
	length int
	// prior is 1, or assessmentPrior for a chunk of a quiz or exercise:
	// it restates the chapter's words as questions, so it matches many
	// questions well and answers few.
	prior float64
}

const assessmentPrior = 0.5

// New builds the retrieval model of a book from its chunks.
func New(chunks []rag.Chunk) *Index {
	ix := &Index{
		chunks:  chunks,
		docs:    make([]doc, len(chunks)),
		df:      map[string]int{},
		vocab:   map[string]string{},
		byLen:   map[int][]string{},
		n:       float64(len(chunks)),
		chapter: map[string]map[string]bool{},
		pos:     map[string]int{},
		units:   map[string][]*unit{},

		postings:     map[string][]posting{},
		termChapters: map[string][]string{},
		chapterDocs:  map[string][]int{},
	}
	for i, c := range chunks {
		ix.pos[c.ID] = i
		d := doc{terms: map[string]int{}, head: map[string]bool{}}
		for _, t := range tokenize(c.Text) {
			if stopwords[t.word] {
				continue
			}
			d.terms[t.stem]++
			d.length++
			if _, ok := ix.vocab[t.word]; !ok {
				ix.vocab[t.word] = t.stem
				l := len([]rune(t.word))
				ix.byLen[l] = append(ix.byLen[l], t.word)
			}
		}
		// The chapter title is left out: every chunk of the chapter shares
		// it, so it cannot tell them apart.
		heads := c.SectionHeading
		for _, h := range c.Headings {
			heads += " " + h.Text
		}
		for _, t := range tokenize(heads) {
			if !stopwords[t.word] {
				d.head[t.stem] = true
			}
		}
		d.prior = 1
		if assessmentTitle(c.ChapterTitle) || assessmentTitle(c.SectionHeading) {
			d.prior = assessmentPrior
		}
		ix.chapterDocs[c.ChapterPath] = append(ix.chapterDocs[c.ChapterPath], i)
		for s := range d.terms {
			ix.df[s]++
			ix.postings[s] = append(ix.postings[s], posting{doc: i, tf: d.terms[s], head: d.head[s]})
			if ix.chapter[c.ChapterPath] == nil {
				ix.chapter[c.ChapterPath] = map[string]bool{}
			}
			if !ix.chapter[c.ChapterPath][s] {
				ix.termChapters[s] = append(ix.termChapters[s], c.ChapterPath)
			}
			ix.chapter[c.ChapterPath][s] = true
		}
		ix.docs[i] = d
	}
	total := 0
	for _, d := range ix.docs {
		total += d.length
	}
	ix.avgLen = float64(total) / max(ix.n, 1)
	ix.model = DefaultModel()
	ix.assoc = buildAssociations(ix)
	for _, c := range chunks {
		ix.units[c.ID] = splitUnits(c)
	}
	return ix
}

// SetModel makes the answerer weigh its candidates with m (a model
// being fitted or evaluated) instead of the embedded one.
func (ix *Index) SetModel(m *Model) { ix.model = m }

// Chunks returns the chunks the index was built from, in book order.
func (ix *Index) Chunks() []rag.Chunk { return ix.chunks }

// idf is the information a word carries in this book, in nats.
func (ix *Index) idf(stem string) float64 {
	// A word the book never uses weighs as much as its rarest words: it
	// is as likely as they are to be what the question is about.
	df := max(float64(ix.df[stem]), 1)
	return math.Log(1 + ix.n/df)
}

// query is an analysed question: the words that carry its subject.
type query struct {
	terms []qterm
	total float64 // sum of weights
	// wantsNumber is set for questions that ask for a quantity.
	wantsNumber bool
}

type qterm struct {
	word   string
	stem   string
	weight float64
	known  bool
	// related are book words used where this one is, with a strength in
	// (0, 1): a chunk holding one of them partly matches the term.
	related []related
}

// analyze turns a question into weighted subject terms.
func (ix *Index) analyze(question string) query {
	var q query
	seen := map[string]bool{}
	toks := tokenize(question)
	skipParts := false
	for i, t := range toks {
		if t.part && skipParts {
			continue
		}
		skipParts = false
		if measureWords[t.word] && i > 0 && toks[i-1].word == "how" {
			q.wantsNumber = true
		}
		if stopwords[t.word] || questionWords[t.word] || (ix.df[t.stem] == 0 && isMisspeltFunctionWord(t.word)) {
			// A compound question word ("step-by-step") takes its parts along.
			skipParts = !t.part
			continue
		}
		if (t.word == "many" || t.word == "much") && i > 0 && toks[i-1].word == "how" {
			continue
		}
		for _, qt := range ix.resolve(t) {
			if seen[qt.stem] {
				continue
			}
			seen[qt.stem] = true
			q.terms = append(q.terms, qt)
		}
	}
	for i := range q.terms {
		q.total += q.terms[i].weight
	}
	return q
}

// resolve maps a question word to book terms: as written, repaired when
// misspelt (not an English word), or split where a reader joined a word and a number ("ros2").
func (ix *Index) resolve(t token) []qterm {
	if ix.df[t.stem] > 0 {
		return []qterm{ix.term(t.word, t.stem)}
	}
	if parts := splitLetterDigit(t.word); len(parts) > 1 {
		var out []qterm
		for _, p := range parts {
			if s := stem(p); ix.df[s] > 0 {
				out = append(out, ix.term(p, s))
			}
		}
		if len(out) == len(parts) {
			return out
		}
	}
	// Only a word that is not English is a slip to repair. A real word
	// the book never uses stays unknown and counts against the question:
	// repaired, it would let an off-domain question borrow a book word.
	// The same word spelt the other side of the Atlantic is the word
	// itself ("color" in a book that writes "colour").
	if isEnglishWord(t.word) {
		if w, ok := ix.spelledOtherwise(t.word); ok {
			return []qterm{ix.term(w, ix.vocab[w])}
		}
	} else if w, ok := ix.correct(t.word); ok {
		return []qterm{ix.term(w, ix.vocab[w])}
	}
	return []qterm{{word: t.word, stem: t.stem, weight: ix.idf(t.stem)}}
}

// measureWords follow "how" in a question that asks for a quantity:
// "how many", "how fast", "how often" are answered by a number.
var measureWords = setOf(`many much long far fast often big large small heavy high low wide tall old
frequent frequently quickly soon accurate precise`)

// isMisspeltFunctionWord catches "wich", "waht", "thsi": a question word
// a reader mistyped must not count as an unknown subject word. Only
// four-letter words are tried: among shorter and longer ones too many real
// words lie one edit from a function word ("won"/"own", "world"/"would"),
// and an English word is never taken for a slip ("cook" for "cool").
func isMisspeltFunctionWord(w string) bool {
	l := len([]rune(w))
	if l != 4 || isEnglishWord(w) {
		return false
	}
	for _, set := range []map[string]bool{stopwords, questionWords} {
		for c := range set {
			if cl := len([]rune(c)); cl >= 3 && cl-l <= 1 && l-cl <= 1 && editDistance(w, c, 1) <= 1 {
				return true
			}
		}
	}
	return false
}

func (ix *Index) term(word, stem string) qterm {
	qt := qterm{word: word, stem: stem, weight: ix.idf(stem), known: true}
	qt.related = append(ix.compoundHead(word), ix.assoc.of(stem)...)
	return qt
}

// compoundHead splits a compound word the book also writes in parts
// ("timestamp" = "time" + "stamp"): a text holding the head, the last
// part, partly matches the compound.
func (ix *Index) compoundHead(word string) []related {
	rs := []rune(word)
	for i := 3; i <= len(rs)-4; i++ {
		a, b := string(rs[:i]), string(rs[i:])
		if _, ok := ix.vocab[a]; !ok {
			continue
		}
		if s, ok := ix.vocab[b]; ok && s != stem(word) {
			return []related{{stem: s, strength: compoundCredit}}
		}
	}
	return nil
}

func splitLetterDigit(w string) []string {
	var parts []string
	start := 0
	rs := []rune(w)
	for i := 1; i < len(rs); i++ {
		if unicode.IsDigit(rs[i]) != unicode.IsDigit(rs[i-1]) {
			parts = append(parts, string(rs[start:i]))
			start = i
		}
	}
	return append(parts, string(rs[start:]))
}

// correct finds the book word a misspelt word most likely meant: within
// one edit for words of 5-7 letters, two for longer ones, with the same
// first letter, preferring the more frequent book word. Short words are never corrected: too many
// unrelated words lie one edit apart.
func (ix *Index) correct(w string) (string, bool) {
	if c, ok := ix.corrections.Load(w); ok {
		return c.(string), c.(string) != ""
	}
	c, _ := ix.findCorrection(w)
	if len(w) <= 40 && ix.nCorrections.Load() < maxCachedStems {
		if _, loaded := ix.corrections.LoadOrStore(w, c); !loaded {
			ix.nCorrections.Add(1)
		}
	}
	return c, c != ""
}

func (ix *Index) findCorrection(w string) (string, bool) {
	l := len([]rune(w))
	if l < 5 || isNumber(w) {
		return "", false
	}
	maxd := 1
	if l >= 8 {
		maxd = 2
	}
	best, bestDF := "", 0
	for ll := l - maxd; ll <= l+maxd; ll++ {
		for _, c := range ix.byLen[ll] {
			// Typing slips rarely change a word's first letter; a word
			// that differs there ("pybullet"/"bullet", "breakout"/
			// "readout") is another word, not a slip.
			if c[0] != w[0] {
				continue
			}
			// A one-letter substitution in a short word usually makes
			// another real word ("stuff"/"stiff", "style"/"stale"); typing
			// slips in short words are dropped, doubled or swapped letters.
			if ll == l && l < 7 && !isTransposition(w, c) {
				continue
			}
			if editDistance(w, c, maxd) <= maxd {
				if df := ix.df[ix.vocab[c]]; df > bestDF {
					best, bestDF = c, df
				}
			}
		}
	}
	return best, best != ""
}

// isTransposition reports two same-length words that differ by one swap
// of neighbouring letters.
func isTransposition(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	if len(ra) != len(rb) {
		return false
	}
	var diff []int
	for i := range ra {
		if ra[i] != rb[i] {
			diff = append(diff, i)
		}
	}
	return len(diff) == 2 && diff[1] == diff[0]+1 && ra[diff[0]] == rb[diff[1]] && ra[diff[1]] == rb[diff[0]]
}

// editDistance is the optimal-string-alignment distance, cut off early
// once it exceeds max.
func editDistance(a, b string, max int) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// coverage scores how much of the query a set of terms holds.
func (q *query) coverage(has func(stem string) float64) float64 {
	if q.total == 0 {
		return 0
	}
	var got float64
	for _, t := range q.terms {
		m := has(t.stem)
		if m < 1 {
			for _, r := range t.related {
				if v := has(r.stem) * r.strength; v > m {
					m = v
				}
			}
		}
		got += t.weight * m
	}
	return got / q.total
}

// Retrieve scores every chunk and returns the k best. Ties in coverage go
// to the chunk whose headings name the question's words and then to the
// one where they are densest.
func (ix *Index) Retrieve(ctx context.Context, question string, k int) ([]rag.ScoredChunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q := focus(ix.analyze(question), question)
	return ix.retrieve(q, k), nil
}

// calibrated maps coverage onto the refusal spec's scale. Coverage counts
// every word the book never uses at full weight against the question, so
// it runs low: a chunk that holds three fifths of a question's information
// is a confident match (0.7), one that holds less than two fifths has
// nothing relevant (0.5). Linear in between and above; 0 and 1 stay put.
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

// compoundCredit is what the head of a compound is worth for the whole.
const compoundCredit = 0.7

// chapterCredit is what a question word is worth when the chunk lacks it
// but its chapter uses it: the passage is read in that chapter's context.
const chapterCredit = 0.5

type ranked struct {
	i     int
	score float64
	rank  float64
}

func (ix *Index) retrieve(q query, k int) []rag.ScoredChunk {
	if len(q.terms) == 0 || k <= 0 {
		return nil
	}
	// Walk each term's postings instead of every chunk's terms.
	n := len(ix.docs)
	score := make([]float64, n) // coverage, chapter context and relatives counted
	local := make([]float64, n) // the chunk's own words only
	extra := make([]float64, n) // heading and density, for ranking ties
	match := make([]float64, n)
	for _, t := range q.terms {
		clear(match)
		for _, c := range ix.termChapters[t.stem] {
			for _, d := range ix.chapterDocs[c] {
				match[d] = chapterCredit
			}
		}
		for _, r := range t.related {
			for _, p := range ix.postings[r.stem] {
				match[p.doc] = max(match[p.doc], r.strength)
			}
		}
		for _, p := range ix.postings[t.stem] {
			d := p.doc
			match[d] = 1
			local[d] += t.weight
			if p.head {
				extra[d] += 0.15 * t.weight
			}
			tf := float64(p.tf)
			extra[d] += 0.05 * t.weight * tf / (tf + 1.2*(0.25+0.75*float64(ix.docs[d].length)/300))
		}
		for d, m := range match {
			score[d] += t.weight * m
		}
	}
	// Keep the k best in order as they come: k is at most 100, the book
	// can be far longer.
	better := func(a, b ranked) bool { return a.rank > b.rank || a.rank == b.rank && a.i < b.i }
	rs := make([]ranked, 0, k+1)
	for d := range score {
		if score[d] <= 0 {
			continue
		}
		r := ranked{i: d, score: score[d] / q.total, rank: ix.docs[d].prior * (local[d] + extra[d]) / q.total}
		if len(rs) == k && !better(r, rs[k-1]) {
			continue
		}
		at := len(rs)
		for at > 0 && better(r, rs[at-1]) {
			at--
		}
		rs = slices.Insert(rs, at, r)
		if len(rs) > k {
			rs = rs[:k]
		}
	}
	// Coverage decides whether a chunk clears the confident threshold;
	// how far above it the chunk sits is what it holds of the question
	// times how much it is about it (its rank against the best chunk's),
	// so chunks that hold the question's words equally (a whole chapter
	// uses them) are told apart and no longer tie at 1. The chunks are
	// returned in the order of that score, ties in rank order.
	out := make([]rag.ScoredChunk, len(rs))
	for j, r := range rs {
		sc := calibrated(r.score)
		if sc > confidentLine && rs[0].rank > 0 {
			sc = confidentLine + (sc-confidentLine)*r.rank/rs[0].rank
		}
		out[j] = rag.ScoredChunk{Chunk: ix.chunks[r.i], Score: round(sc)}
	}
	slices.SortStableFunc(out, func(a, b rag.ScoredChunk) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

// confidentLine is the spec's confident threshold, to which the scale of
// calibrated is fitted.
const confidentLine = 0.7

func round(f float64) float64 { return math.Round(f*10000) / 10000 }

// Explain describes how a question was read, for debugging and the CLI's
// verbose mode.
func (ix *Index) Explain(question string) string {
	q := ix.analyze(question)
	var b strings.Builder
	for _, t := range q.terms {
		known := "unknown"
		if t.known {
			known = "known"
		}
		b.WriteString(t.word + "(" + t.stem + "," + known + "," + strings.TrimRight(strings.TrimRight(fmtFloat(t.weight), "0"), ".") + ")")
		for _, r := range t.related {
			b.WriteString(" ~" + r.stem + ":" + fmtFloat(r.strength))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ChunkScore is one chunk's score for a question, with the per-word
// detail, for debugging and calibration.
type ChunkScore struct {
	Score  float64
	Detail string
}

// ScoreChunk scores one chunk against a question as Retrieve does and says
// which question words the chunk holds.
func (ix *Index) ScoreChunk(question string, c rag.Chunk) ChunkScore {
	q := ix.analyze(question)
	terms := stemSet(c.Text)
	ch := ix.chapter[c.ChapterPath]
	var b strings.Builder
	score := q.coverage(func(s string) float64 {
		if terms[s] {
			return 1
		}
		if ch[s] {
			return chapterCredit
		}
		return 0
	})
	for _, t := range q.terms {
		mark := "-"
		switch {
		case terms[t.stem]:
			mark = "+"
		case ch[t.stem]:
			mark = "~"
		}
		b.WriteString(mark + t.word + " ")
	}
	return ChunkScore{Score: round(calibrated(score)), Detail: b.String()}
}

// slots numbers the stems a query's coverage looks up (its terms and
// their related stems), so that scoring many units, and windows of them,
// reads slices instead of maps.
type slots struct {
	stems   []string
	term    []int   // slot of q.terms[i]
	related [][]int // slot of q.terms[i].related[r]
}

func newSlots(q *query) slots {
	var sl slots
	at := map[string]int{}
	slot := func(s string) int {
		k, ok := at[s]
		if !ok {
			k = len(sl.stems)
			at[s] = k
			sl.stems = append(sl.stems, s)
		}
		return k
	}
	sl.term = make([]int, len(q.terms))
	sl.related = make([][]int, len(q.terms))
	for i, t := range q.terms {
		sl.term[i] = slot(t.stem)
		for _, r := range t.related {
			sl.related[i] = append(sl.related[i], slot(r.stem))
		}
	}
	return sl
}

// coverageOf is coverage with v[k] the match of stem slot k.
func (q *query) coverageOf(sl slots, v []float64) float64 {
	if q.total == 0 {
		return 0
	}
	var got float64
	for i, t := range q.terms {
		m := v[sl.term[i]]
		if m < 1 {
			for r, k := range sl.related[i] {
				if x := v[k] * t.related[r].strength; x > m {
					m = x
				}
			}
		}
		got += t.weight * m
	}
	return got / q.total
}
