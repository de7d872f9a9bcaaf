// Package analysis reads text the way both the built-in retriever
// (package lexical) and the answerer (package answer) do, and knows
// nothing of either: it splits words and stems them, tells function words
// and question words from subject words, and learns from one book what
// the two need of it: how rare each word is, which words each chunk and
// each chapter uses, the book's vocabulary (against which a misspelt
// question word is repaired) and which words the book uses together.
//
// A question is analysed against a book (Book.Analyze) into a Query: its
// subject words, each weighted by the information it carries in the book.
package analysis

import (
	"math"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/textbook-rag/rag"
)

// Book is what the analysis learns of one book, once, from its chunks. It
// is read-only once built, and safe for concurrent use.
type Book struct {
	chunks []rag.Chunk
	// pos is each chunk's place in the book, by id.
	pos map[string]int
	// terms and length are each chunk's stems (stem -> count, body and
	// headings, function words left out) and its length in such words.
	terms  []map[string]int
	length []int
	df     map[string]int    // stem -> number of chunks holding it
	vocab  map[string]string // surface word -> stem, for spelling repair
	byLen  map[int][]string  // surface words by rune length
	n      float64
	// avgLen is the mean chunk length in words.
	avgLen float64
	// chapter maps a chunk's ChapterPath to the stems used anywhere in
	// that chapter.
	chapter map[string]map[string]bool
	assoc   *associations
	// segments holds the dotted and hyphenated parts of the book's words
	// ("create_client" of "node.create_client"), built on first use.
	segments func() map[string]bool
	// corrections memoizes spelling repairs of unknown words.
	corrections  sync.Map
	nCorrections atomic.Int64
}

// NewBook learns what the analysis needs of a book from its chunks, in
// book order.
func NewBook(chunks []rag.Chunk) *Book { return NewBookWith(chunks, nil) }

// NewBookWith is NewBook given the associations an earlier NewBook of the
// same chunks derived (Book.Associations), kept beside the book's index:
// they are most of what learning a large book costs. nil derives them.
func NewBookWith(chunks []rag.Chunk, related map[string][]Related) *Book {
	bk := &Book{
		chunks:  chunks,
		pos:     map[string]int{},
		terms:   make([]map[string]int, len(chunks)),
		length:  make([]int, len(chunks)),
		df:      map[string]int{},
		vocab:   map[string]string{},
		byLen:   map[int][]string{},
		n:       float64(len(chunks)),
		chapter: map[string]map[string]bool{},
	}
	bk.segments = sync.OnceValue(func() map[string]bool {
		seg := map[string]bool{}
		for w := range bk.vocab {
			if strings.ContainsAny(w, ".-") {
				for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == '.' || r == '-' }) {
					seg[p] = true
				}
			}
		}
		return seg
	})
	total := 0
	for i, c := range chunks {
		bk.pos[c.ID] = i
		terms := map[string]int{}
		for _, t := range Tokenize(c.Text) {
			if Stopwords[t.Word] {
				continue
			}
			terms[t.Stem]++
			bk.length[i]++
			if _, ok := bk.vocab[t.Word]; !ok {
				bk.vocab[t.Word] = t.Stem
				l := len([]rune(t.Word))
				bk.byLen[l] = append(bk.byLen[l], t.Word)
			}
		}
		for s := range terms {
			bk.df[s]++
			if bk.chapter[c.ChapterPath] == nil {
				bk.chapter[c.ChapterPath] = map[string]bool{}
			}
			bk.chapter[c.ChapterPath][s] = true
		}
		bk.terms[i] = terms
		total += bk.length[i]
	}
	bk.avgLen = float64(total) / max(bk.n, 1)
	if related != nil {
		bk.assoc = &associations{rel: related}
	} else {
		bk.assoc = buildAssociations(bk)
	}
	return bk
}

// Associations returns the related words the book derived, by stem, to be
// kept beside its index (see NewBookWith). The map is the book's: read it
// only.
func (bk *Book) Associations() map[string][]Related { return bk.assoc.rel }

// Chunks returns the chunks the book was read from, in book order.
func (bk *Book) Chunks() []rag.Chunk { return bk.chunks }

// Position returns the place in Chunks of the chunk with the given id.
func (bk *Book) Position(id string) (int, bool) {
	i, ok := bk.pos[id]
	return i, ok
}

// Terms returns the stems of chunk i (its place in Chunks) with their
// counts, function words left out. The map is the book's: read it only.
func (bk *Book) Terms(i int) map[string]int { return bk.terms[i] }

// Length is chunk i's length in words, function words left out.
func (bk *Book) Length(i int) int { return bk.length[i] }

// AvgLength is the mean chunk length in words, function words left out.
func (bk *Book) AvgLength() float64 { return bk.avgLen }

// N is the number of chunks.
func (bk *Book) N() float64 { return bk.n }

// DF is the number of chunks holding a stem.
func (bk *Book) DF(stem string) int { return bk.df[stem] }

// ChapterStems returns the stems used anywhere in the chapter at path (a
// chunk's ChapterPath), nil for a chapter the book does not have. The map
// is the book's: read it only.
func (bk *Book) ChapterStems(path string) map[string]bool { return bk.chapter[path] }

// IDF is the information a word carries in this book, in nats.
func (bk *Book) IDF(stem string) float64 {
	// A word the book never uses weighs as much as its rarest words: it
	// is as likely as they are to be what the question is about.
	df := max(float64(bk.df[stem]), 1)
	return math.Log(1 + bk.n/df)
}

// StemSet returns the stems of a text's words, function words left out.
func StemSet(text string) map[string]bool {
	m := map[string]bool{}
	for _, t := range Tokenize(text) {
		if !Stopwords[t.Word] {
			m[t.Stem] = true
		}
	}
	return m
}

// AssessmentTitle reports a heading or chapter title that marks a quiz,
// an exercise or a prompt for the reader, as whole words: "Prompting" or
// "Prompt engineering" are subjects, not prompts.
func AssessmentTitle(title string) bool {
	return assessmentWords.MatchString(title)
}

var assessmentWords = regexp.MustCompile(`(?i)\b(?:quiz(?:zes)?|exercises?|assessments?|check your understanding|prompts?)\b`)

// Mentions reports whether the book uses a word, in any of its forms
// ("LiDARs" where it writes "LiDAR") or as a dotted or hyphenated part of
// a word ("create_client" in "node.create_client"); case does not matter.
func (bk *Book) Mentions(word string) bool {
	w := strings.ToLower(word)
	return bk.df[Stem(w)] > 0 || bk.segments()[w]
}
