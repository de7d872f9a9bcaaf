package analysis

import (
	"strings"
	"unicode"
)

// Query is an analysed question: the words that carry its subject.
type Query struct {
	Terms []Term
	Total float64 // sum of weights
	// WantsNumber is set for questions that ask for a quantity.
	WantsNumber bool
}

// Term is one subject word of a question, as the book knows it.
type Term struct {
	Word string
	Stem string
	// Weight is the information the word carries in the book (see IDF).
	Weight float64
	// Known is set for a word the book uses, as written or repaired.
	Known bool
	// Related are book words used where this one is, with a strength in
	// (0, 1): a chunk holding one of them partly matches the term.
	Related []Related
}

// Analyze turns a question into weighted subject terms.
func (bk *Book) Analyze(question string) Query { return bk.analyze(Tokenize(question)) }

// analyze turns a question's tokens into weighted subject terms.
func (bk *Book) analyze(toks []Token) Query {
	var q Query
	seen := map[string]bool{}
	skipParts := false
	for i, t := range toks {
		if t.Part && skipParts {
			continue
		}
		skipParts = false
		if measureWords[t.Word] && i > 0 && toks[i-1].Word == "how" {
			q.WantsNumber = true
		}
		if Stopwords[t.Word] || QuestionWords[t.Word] || (bk.df[t.Stem] == 0 && IsMisspeltFunctionWord(t.Word)) {
			// A compound question word ("step-by-step") takes its parts along.
			skipParts = !t.Part
			continue
		}
		if (t.Word == "many" || t.Word == "much") && i > 0 && toks[i-1].Word == "how" {
			continue
		}
		if !t.Part && bk.df[t.Stem] == 0 && bk.knowsSegments(t.Word) {
			// A qualified name the book never writes whole, whose
			// segments it uses ("self.create_publisher" where the book
			// has node.create_publisher): the segments, which follow,
			// carry it.
			continue
		}
		for _, qt := range bk.Resolve(t) {
			if seen[qt.Stem] {
				continue
			}
			seen[qt.Stem] = true
			q.Terms = append(q.Terms, qt)
		}
	}
	for i := range q.Terms {
		q.Total += q.Terms[i].Weight
	}
	return q
}

// knowsSegments reports a dotted name each of whose segments the book
// uses as a word.
func (bk *Book) knowsSegments(w string) bool {
	if !strings.Contains(w, ".") || IsNumber(w) {
		return false
	}
	for _, seg := range strings.Split(w, ".") {
		if seg == "" || bk.df[Stem(seg)] == 0 {
			return false
		}
	}
	return true
}

// Resolve maps a question word to book terms: as written, repaired when
// misspelt (not an English word), or split where a reader joined a word and a number ("ros2").
func (bk *Book) Resolve(t Token) []Term {
	if bk.df[t.Stem] > 0 {
		return []Term{bk.term(t.Word, t.Stem)}
	}
	if IsOperator(t.Word) {
		// An operator the book never writes is no slip of a word.
		return []Term{{Word: t.Word, Stem: t.Stem, Weight: bk.IDF(t.Stem)}}
	}
	if parts := splitLetterDigit(t.Word); len(parts) > 1 {
		var out []Term
		for _, p := range parts {
			if s := Stem(p); bk.df[s] > 0 {
				out = append(out, bk.term(p, s))
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
	if isEnglishWord(t.Word) {
		if w, ok := bk.spelledOtherwise(t.Word); ok {
			return []Term{bk.term(w, bk.vocab[w])}
		}
	} else if w, ok := bk.correct(t.Word); ok {
		return []Term{bk.term(w, bk.vocab[w])}
	}
	return []Term{{Word: t.Word, Stem: t.Stem, Weight: bk.IDF(t.Stem)}}
}

// measureWords follow "how" in a question that asks for a quantity:
// "how many", "how fast", "how often" are answered by a number.
var measureWords = setOf(`many much long far fast often big large small heavy high low wide tall old
frequent frequently quickly soon accurate precise`)

// IsMisspeltFunctionWord catches "wich", "waht", "thsi": a question word
// a reader mistyped must not count as an unknown subject word. Only
// four-letter words are tried: among shorter and longer ones too many real
// words lie one edit from a function word ("won"/"own", "world"/"would"),
// and an English word is never taken for a slip ("cook" for "cool").
func IsMisspeltFunctionWord(w string) bool {
	l := len([]rune(w))
	if l != 4 || isEnglishWord(w) {
		return false
	}
	for _, set := range []map[string]bool{Stopwords, QuestionWords} {
		for c := range set {
			if cl := len([]rune(c)); cl >= 3 && cl-l <= 1 && l-cl <= 1 && editDistance(w, c, 1) <= 1 {
				return true
			}
		}
	}
	return false
}

func (bk *Book) term(word, stem string) Term {
	qt := Term{Word: word, Stem: stem, Weight: bk.IDF(stem), Known: true}
	qt.Related = append(bk.compoundHead(word), bk.assoc.of(stem)...)
	return qt
}

// compoundHead splits a compound word the book also writes in parts
// ("timestamp" = "time" + "stamp"): a text holding the head, the last
// part, partly matches the compound.
func (bk *Book) compoundHead(word string) []Related {
	rs := []rune(word)
	for i := 3; i <= len(rs)-4; i++ {
		a, b := string(rs[:i]), string(rs[i:])
		if _, ok := bk.vocab[a]; !ok {
			continue
		}
		if s, ok := bk.vocab[b]; ok && s != Stem(word) {
			return []Related{{Stem: s, Strength: compoundCredit}}
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
func (bk *Book) correct(w string) (string, bool) {
	if c, ok := bk.corrections.Load(w); ok {
		return c.(string), c.(string) != ""
	}
	c, _ := bk.findCorrection(w)
	if len(w) <= 40 && bk.nCorrections.Load() < maxCachedStems {
		if _, loaded := bk.corrections.LoadOrStore(w, c); !loaded {
			bk.nCorrections.Add(1)
		}
	}
	return c, c != ""
}

func (bk *Book) findCorrection(w string) (string, bool) {
	l := len([]rune(w))
	if l < 5 || IsNumber(w) {
		return "", false
	}
	maxd := 1
	if l >= 8 {
		maxd = 2
	}
	best, bestDF := "", 0
	for ll := l - maxd; ll <= l+maxd; ll++ {
		for _, c := range bk.byLen[ll] {
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
				if df := bk.df[bk.vocab[c]]; df > bestDF {
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

// Coverage scores how much of the query a set of terms holds.
func (q *Query) Coverage(has func(stem string) float64) float64 {
	if q.Total == 0 {
		return 0
	}
	var got float64
	for _, t := range q.Terms {
		m := has(t.Stem)
		if m < 1 {
			for _, r := range t.Related {
				if v := has(r.Stem) * r.Strength; v > m {
					m = v
				}
			}
		}
		got += t.Weight * m
	}
	return got / q.Total
}

// compoundCredit is what the head of a compound is worth for the whole.
const compoundCredit = 0.7
