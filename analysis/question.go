package analysis

// Question is a reader's question read once, where the tutor receives
// it: its tokens and its subject terms as one book weighs them. The
// retriever and the answerer both work from it; neither tokenizes the
// text again (a reading of the answerer's own, its operators and
// phrase, is made from it: see package answer).
type Question struct {
	// Text is the question as the reader wrote it.
	Text string
	// Tokens are Text's words (see Tokenize); Spans[i] are the runes
	// [start, end) of Text that Tokens[i] is read from.
	Tokens []Token
	Spans  [][2]int
	// Terms are the subject terms as Analyze reads them; Query the same
	// with the words of a leading step clause or story discounted (see
	// Focus), which retrieval and the answerer weigh.
	Terms Query
	Query Query
	// Stems holds the stems of the subject terms.
	Stems map[string]bool
	book  *Book
}

// Read reads a question once for every stage of an ask.
func (bk *Book) Read(text string) *Question {
	q := &Question{Text: text, book: bk}
	q.Tokens = tokenize(text, &q.Spans)
	q.Terms = bk.analyze(q.Tokens)
	q.Query = Focus(q.Terms, text)
	q.Stems = make(map[string]bool, len(q.Query.Terms))
	for _, t := range q.Query.Terms {
		q.Stems[t.Stem] = true
	}
	return q
}

// ReadBy reports whether bk read the question: its terms carry bk's
// weights. A stage of another book reads the text again.
func (q *Question) ReadBy(bk *Book) bool { return q != nil && q.book == bk }
