// Package lexical is the embedded retriever: it learns everything it needs
// from the ingested book (its vocabulary, how rare each word is, which
// words occur together; package analysis reads them) and scores a
// question against every chunk with a number in [0, 1] that carries the
// refusal spec's meaning. It only retrieves: what of the chunks answers
// is the answerer's (package answer) to find.
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
	"strconv"
	"strings"
	"sync"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

var _ rag.Retriever = (*Index)(nil)

// Index is the in-memory retrieval model of one book.
type Index struct {
	book   *analysis.Book
	chunks []rag.Chunk
	docs   []doc
	// postings lists the chunks holding each stem; termChapters the
	// chapters using it; chapterDocs the chunks of each chapter.
	postings     map[string][]posting
	termChapters map[string][]string
	chapterDocs  map[string][]int
}

// posting is one chunk holding a stem, with what ranking needs of it.
type posting struct {
	doc  int
	tf   int  // the stem's count in the chunk
	head bool // the stem names the chunk's headings
}

type doc struct {
	// head holds the stems of the chunk's section heading and
	// sub-headings: a question naming them is about this chunk.
	head map[string]bool
	// prior is 1, or assessmentPrior for a chunk of a quiz or exercise:
	// it restates the chapter's words as questions, so it matches many
	// questions well and answers few.
	prior float64
}

const assessmentPrior = 0.5

// New builds the retrieval model of a book from what the analysis
// learnt of it.
func New(book *analysis.Book) *Index {
	chunks := book.Chunks()
	ix := &Index{
		book:   book,
		chunks: chunks,
		docs:   make([]doc, len(chunks)),

		postings:     map[string][]posting{},
		termChapters: map[string][]string{},
		chapterDocs:  map[string][]int{},
	}
	var chapters []string // in book order
	for i, c := range chunks {
		d := doc{head: map[string]bool{}}
		// The chapter title is left out: every chunk of the chapter shares
		// it, so it cannot tell them apart.
		heads := c.SectionHeading
		for _, h := range c.Headings {
			heads += " " + h.Text
		}
		// A term the text sets in bold or italics is one of its subjects,
		// as a heading's words are: a glossary entry, a definition.
		emphasized(c.Text, func(text string) { heads += " " + text })
		for _, t := range analysis.Tokenize(heads) {
			if !analysis.Stopwords[t.Word] {
				d.head[t.Stem] = true
			}
		}
		d.prior = 1
		if analysis.AssessmentTitle(c.ChapterTitle) || analysis.AssessmentTitle(c.SectionHeading) {
			d.prior = assessmentPrior
		}
		if ix.chapterDocs[c.ChapterPath] == nil {
			chapters = append(chapters, c.ChapterPath)
		}
		ix.chapterDocs[c.ChapterPath] = append(ix.chapterDocs[c.ChapterPath], i)
		terms := book.Terms(i)
		for s := range terms {
			ps := ix.postings[s]
			if ps == nil {
				// A stem's postings are as many as the chunks holding it:
				// sized once, without the slack of growing.
				ps = make([]posting, 0, book.DF(s))
			}
			ix.postings[s] = append(ps, posting{doc: i, tf: terms[s], head: d.head[s]})
		}
		ix.docs[i] = d
	}
	for _, p := range chapters {
		for s := range book.ChapterStems(p) {
			ix.termChapters[s] = append(ix.termChapters[s], p)
		}
	}
	return ix
}

// Chunks returns the chunks the index was built from, in book order.
func (ix *Index) Chunks() []rag.Chunk { return ix.chunks }

// Retrieve scores every chunk and returns the k best. Ties in coverage go
// to the chunk whose headings name the question's words and then to the
// one where they are densest.
func (ix *Index) Retrieve(ctx context.Context, question string, k int) ([]rag.ScoredChunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ix.retrieve(ix.book.Read(question).Query, k), nil
}

// RetrieveQuestion is Retrieve for a question the tutor has read once
// (see analysis.Question): it is not tokenized again. A question read by
// another book is read again with this one's statistics.
func (ix *Index) RetrieveQuestion(ctx context.Context, q *analysis.Question, k int) ([]rag.ScoredChunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !q.ReadBy(ix.book) {
		q = ix.book.Read(q.Text)
	}
	return ix.retrieve(q.Query, k), nil
}

// scratch holds retrieve's per-chunk tallies between questions: a
// question's four of them would otherwise be most of what retrieval
// allocates.
var scratch = sync.Pool{New: func() any { return new([]float64) }}

// Ties in coverage are broken by what the chunk's headings name
// (headingTie of each word's weight) and by how dense the words are
// (densityTie of its weight times the word's BM25 saturation, lengths
// against densityLength words): small next to a word's weight, so they
// only order chunks that hold the question equally.
const (
	headingTie    = 0.15
	densityTie    = 0.05
	densityLength = 300
)

type ranked struct {
	i     int
	score float64
	rank  float64
}

func (ix *Index) retrieve(q analysis.Query, k int) []rag.ScoredChunk {
	if len(q.Terms) == 0 || k <= 0 {
		return nil
	}
	// Walk each term's postings instead of every chunk's terms.
	n := len(ix.docs)
	buf := scratch.Get().(*[]float64)
	defer scratch.Put(buf)
	if cap(*buf) < 4*n {
		*buf = make([]float64, 4*n)
	}
	all := (*buf)[:4*n]
	clear(all)
	score := all[:n:n]            // coverage, chapter context and relatives counted
	local := all[n : 2*n : 2*n]   // the chunk's own words only
	extra := all[2*n : 3*n : 3*n] // heading and density, for ranking ties
	match := all[3*n:]
	for _, t := range q.Terms {
		clear(match)
		for _, c := range ix.termChapters[t.Stem] {
			for _, d := range ix.chapterDocs[c] {
				match[d] = ChapterCredit
			}
		}
		for _, r := range t.Related {
			for _, p := range ix.postings[r.Stem] {
				match[p.doc] = max(match[p.doc], r.Strength)
			}
		}
		for _, p := range ix.postings[t.Stem] {
			d := p.doc
			match[d] = 1
			local[d] += t.Weight
			if p.head {
				extra[d] += headingTie * t.Weight
			}
			tf := float64(p.tf)
			extra[d] += densityTie * t.Weight * tf / (tf + LengthNorm(float64(ix.book.Length(d)), densityLength))
		}
		for d, m := range match {
			score[d] += t.Weight * m
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
		r := ranked{i: d, score: score[d] / q.Total, rank: ix.docs[d].prior * (local[d] + extra[d]) / q.Total}
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
		sc := Calibrated(r.score)
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

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

// Explain describes how a question was read, for debugging and the CLI's
// verbose mode.
func (ix *Index) Explain(question string) string {
	q := ix.book.Analyze(question)
	var b strings.Builder
	for _, t := range q.Terms {
		known := "unknown"
		if t.Known {
			known = "known"
		}
		b.WriteString(t.Word + "(" + t.Stem + "," + known + "," + strings.TrimRight(strings.TrimRight(fmtFloat(t.Weight), "0"), ".") + ")")
		for _, r := range t.Related {
			b.WriteString(" ~" + r.Stem + ":" + fmtFloat(r.Strength))
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
	q := ix.book.Analyze(question)
	terms := analysis.StemSet(c.Text)
	ch := ix.book.ChapterStems(c.ChapterPath)
	var b strings.Builder
	score := q.Coverage(func(s string) float64 {
		if terms[s] {
			return 1
		}
		if ch[s] {
			return ChapterCredit
		}
		return 0
	})
	for _, t := range q.Terms {
		mark := "-"
		switch {
		case terms[t.Stem]:
			mark = "+"
		case ch[t.Stem]:
			mark = "~"
		}
		b.WriteString(mark + t.Word + " ")
	}
	return ChunkScore{Score: round(Calibrated(score)), Detail: b.String()}
}
