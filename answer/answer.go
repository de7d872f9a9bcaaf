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
	"runtime"
	"sync"

	"github.com/textbook-rag/rag/analysis"
)

// Answerer finds the passages that answer a question in one book. It is
// the tutor's evidence finder (tutor.EvidenceFinder).
type Answerer struct {
	book *analysis.Book
	// units are each chunk's quotable units, split once, by id.
	units map[string][]*unit
	// headingStems are the stems of each heading the units sit under,
	// by its text: every question weighs the headings of the sections it
	// reads, and the same few hundred recur.
	headingStems map[string]map[string]bool
	// model weighs the candidate passages.
	model *Model
	// meaning, when set, gives the sentence model's vectors for the
	// meaning features (see SetMeaning).
	meaning Vectors
	// bookText is the book as one run of units, for explaining a
	// selection (see ExplainSelection); built on first use.
	textOnce sync.Once
	bookText *bookText
}

// New builds the answerer of a book from what the analysis learnt of it,
// with the embedded model.
func New(book *analysis.Book) *Answerer {
	ans := &Answerer{book: book, units: map[string][]*unit{}, headingStems: map[string]map[string]bool{}, model: DefaultModel()}
	chunks := book.Chunks()
	// Splitting is most of the cost of opening a book (a second for a
	// thousand chunks) and each chunk's is its own, so the cores share it.
	units := make([][]*unit, len(chunks))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(chunks); i += workers {
				units[i] = splitUnits(chunks[i])
			}
		})
	}
	wg.Wait()
	for i, c := range chunks {
		ans.units[c.ID] = units[i]
		for _, u := range ans.units[c.ID] {
			if _, ok := ans.headingStems[u.heading.Text]; !ok {
				ans.headingStems[u.heading.Text] = analysis.StemSet(u.heading.Text)
			}
		}
	}
	return ans
}

// headingStemSet is analysis.StemSet of a heading, from headingStems when
// the book has that heading. Callers must not change it.
func (ans *Answerer) headingStemSet(heading string) map[string]bool {
	if hs, ok := ans.headingStems[heading]; ok {
		return hs
	}
	return analysis.StemSet(heading)
}

// SetModel makes the answerer weigh its candidates with m (a model
// being fitted or evaluated) instead of the embedded one.
func (ans *Answerer) SetModel(m *Model) { ans.model = m }
