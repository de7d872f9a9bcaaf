// Package answer is the book's own answerer: given a question and the
// chunks a retriever found for it (the built-in one, embeddings or
// Qdrant), it finds the passages that answer it, or none. Every window of
// a few sentences, items, rows or code blocks of the chunks is a
// candidate; named features (see Features) describe each, and a model
// fitted on labelled books (see Model) gives each the probability that
// quoting its section answers. The best is quoted when that probability
// reaches the model's threshold. A reader's selection is judged by a fixed
// rule instead (see SelectedEvidence).
//
// The answerer reads the chunks with the book's own statistics (package
// analysis), never with a retriever's score: its features are the same
// whichever retriever ran.
package answer

import (
	"sync"

	"github.com/textbook-rag/rag"
	"sync/atomic"

	"github.com/textbook-rag/rag/analysis"
)

// Answerer finds the passages that answer a question in one book. It is
// the tutor's evidence finder (tutor.EvidenceFinder).
type Answerer struct {
	book *analysis.Book
	// units are each chunk's quotable units, by its place in the book,
	// split on first use (see chunkUnits): a start does not split the
	// whole book, a question splits the chunks it reads.
	units []atomic.Pointer[[]*unit]
	// headingStems caches the stems of the headings questions weigh, by
	// text (map[string]bool): the same few hundred recur.
	headingStems sync.Map
	nHeadings    atomic.Int64
	// model weighs the candidate passages.
	model *Model
	// meaning, when set, gives the sentence model's vectors for the
	// meaning features (see SetMeaning).
	meaning Vectors
	// sectionedPages holds the pages (by ChapterPath) that have a section
	// heading: text before the first is their introduction, while a page
	// without sections is all body (see sectioned).
	sectionedPages map[string]bool
	// side is what the answerer reads of the whole book (see
	// bookSide): read with readSide (see UseBookSide), else built, on
	// first use.
	sideOnce   sync.Once
	side       *bookSide
	readSide   func() ([]byte, error)
	sideFailed func(error)
	// splits counts the book's chunks split into units.
	splits atomic.Int64
}

// New builds the answerer of a book from what the analysis learnt of it,
// with the embedded model.
func New(book *analysis.Book) *Answerer {
	ans := &Answerer{book: book, units: make([]atomic.Pointer[[]*unit], len(book.Chunks())), model: DefaultModel(), sectionedPages: map[string]bool{}}
	for _, c := range book.Chunks() {
		if hasSection(c) {
			ans.sectionedPages[c.ChapterPath] = true
		}
	}
	return ans
}

// sectioned reports whether the chunk's page has a section heading
// below its title, in any of the book's chunks of the page or in the
// chunk itself.
func (ans *Answerer) sectioned(c rag.Chunk) bool {
	return ans.sectionedPages[c.ChapterPath] || hasSection(c)
}

// hasSection reports whether the chunk holds a heading of a section: one
// below the page's title (level 2 or deeper) that is not the title.
func hasSection(c rag.Chunk) bool {
	for _, h := range c.Headings {
		if h.Level >= 2 && h.Text != c.ChapterTitle {
			return true
		}
	}
	return false
}

// headingStemSet is analysis.StemSet of a heading, cached (up to
// maxCachedHeadings texts). Callers must not change it.
func (ans *Answerer) headingStemSet(heading string) map[string]bool {
	if hs, ok := ans.headingStems.Load(heading); ok {
		return hs.(map[string]bool)
	}
	hs := analysis.StemSet(heading)
	if ans.nHeadings.Load() < maxCachedHeadings+int64(len(ans.units)) {
		if _, loaded := ans.headingStems.LoadOrStore(heading, hs); !loaded {
			ans.nHeadings.Add(1)
		}
	}
	return hs
}

// SetModel makes the answerer weigh its candidates with m (a model
// being fitted or evaluated) instead of the embedded one.
func (ans *Answerer) SetModel(m *Model) { ans.model = m }
