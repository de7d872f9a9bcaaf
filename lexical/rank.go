package lexical

import (
	"math"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

// The ranker. Every ranking of chunks or sections by the words they
// share with a question or a selection goes through here: the
// retriever's coverage (Calibrated, ChapterCredit, Score) and its
// tie-break, the answerer's retrieval features (Score, BM25Share), and
// the sections an explanation links to (package answer). BM25 has one
// pair of constants and one formula, LengthNorm and TermScore.

// K1 and B are BM25's constants at the method's customary defaults, not
// fitted: K1 saturates a word's repeats (each counts less than the one
// before), B weighs a document's length against the average (a long one
// holds more words by chance). What they score is weighed by a fitted
// model or only orders.
const (
	K1 = 1.2
	B  = 0.75
)

// LengthNorm is BM25's length normalisation of a document of length
// words where documents average avg words.
func LengthNorm(length, avg float64) float64 { return K1 * (1 - B + B*length/avg) }

// TermScore is BM25's score for a word of inverse document frequency
// idf found tf times in a document whose LengthNorm is norm.
func TermScore(idf, tf, norm float64) float64 { return idf * tf * (K1 + 1) / (tf + norm) }

// Calibrated maps coverage onto the refusal spec's scale. Coverage counts
// every word the book never uses at full weight against the question, so
// it runs low: a chunk that holds three fifths of a question's information
// is a confident match (0.7), one that holds less than two fifths has
// nothing relevant (0.5). Linear in between and above; 0 and 1 stay put.
func Calibrated(coverage float64) float64 {
	switch {
	case coverage <= 0.4:
		return coverage * 0.5 / 0.4
	case coverage <= 0.6:
		return 0.5 + (coverage-0.4)*(0.2/0.2)
	default:
		return 0.7 + (coverage-0.6)*(0.3/0.4)
	}
}

// ChapterCredit is what a question word is worth when the chunk lacks it
// but its chapter uses it: the passage is read in that chapter's context.
const ChapterCredit = 0.5

// Score is a chunk's coverage of q as the retriever counts it (its own
// words, or its chapter's at ChapterCredit), on the spec's scale, worked
// out from the book's statistics whichever retriever found the chunk: a
// chunk the book does not hold as it stands is read from its text.
func Score(book *analysis.Book, q analysis.Query, c rag.Chunk) float64 {
	var terms map[string]int
	if i, ok := book.Position(c.ID); ok && book.Chunks()[i].Text == c.Text {
		terms = book.Terms(i)
	}
	var own map[string]bool
	if terms == nil {
		own = analysis.StemSet(c.Text)
	}
	ch := book.ChapterStems(c.ChapterPath)
	return Calibrated(q.Coverage(func(s string) float64 {
		if terms[s] > 0 || own[s] {
			return 1
		}
		if ch[s] {
			return ChapterCredit
		}
		return 0
	}))
}

// BM25Share is a chunk's BM25 score over q's words divided by the score
// of a chunk holding every word often: a share in [0, 1].
func BM25Share(book *analysis.Book, q analysis.Query, c rag.Chunk) float64 {
	var terms map[string]int
	length := 0
	if i, ok := book.Position(c.ID); ok && book.Chunks()[i].Text == c.Text {
		terms, length = book.Terms(i), book.Length(i)
	} else {
		terms = map[string]int{}
		for _, t := range analysis.Tokenize(c.Text) {
			if !analysis.Stopwords[t.Word] {
				terms[t.Stem]++
				length++
			}
		}
	}
	norm := LengthNorm(float64(length), max(book.AvgLength(), 1))
	var got, most float64
	for _, t := range q.Terms {
		df := float64(book.DF(t.Stem))
		idf := math.Log(1 + (book.N()-df+0.5)/(df+0.5))
		tf := float64(terms[t.Stem])
		got += TermScore(idf, tf, norm)
		most += idf * (K1 + 1)
	}
	if most == 0 {
		return 0
	}
	return got / most
}
