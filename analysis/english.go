package analysis

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"sort"
	"strings"
	"sync"
)

//go:generate go run gen_words.go /usr/share/dict/american-english dict/american-english.gz

// americanEnglish is Debian's wamerican word list (SCOWL; see
// dict/COPYRIGHT), lower-cased, without possessives, sorted, gzipped. It
// is embedded so that spelling repair behaves the same on any machine.
//
//go:embed dict/american-english.gz
var americanEnglish []byte

// englishWords is the word list, read on first use (about 1.4 MB).
var englishWords = sync.OnceValue(func() wordList {
	zr, err := gzip.NewReader(bytes.NewReader(americanEnglish))
	if err != nil {
		return wordList{}
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return wordList{}
	}
	return newWordList(string(b))
})

// wordList is a sorted list of words kept as one string and the end of
// each word in it: a []string would spend 16 bytes per word on headers,
// more than the words themselves.
type wordList struct {
	text string
	ends []uint32
}

// newWordList reads the whitespace-separated words of text, in order.
func newWordList(text string) wordList {
	fields := strings.Fields(text)
	var b strings.Builder
	ends := make([]uint32, 0, len(fields))
	for _, f := range fields {
		b.WriteString(f)
		ends = append(ends, uint32(b.Len()))
	}
	return wordList{text: b.String(), ends: ends}
}

func (l wordList) len() int { return len(l.ends) }

func (l wordList) at(i int) string {
	start := uint32(0)
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.text[start:l.ends[i]]
}

// contains reports whether w is in the (sorted) list.
func (l wordList) contains(w string) bool {
	i := sort.Search(l.len(), func(i int) bool { return l.at(i) >= w })
	return i < l.len() && l.at(i) == w
}

// isEnglishWord reports whether w (lower-case) is an English word. A
// question word that is one is what the reader meant, even when the book
// never uses it: repairing it to a book word would answer a question the
// reader did not ask ("inception" is not a misspelt "perception"). A
// hyphenated compound of English words ("real-life") is English too; the
// list holds few of them.
func isEnglishWord(w string) bool {
	words := englishWords()
	for _, part := range strings.Split(w, "-") {
		if !words.contains(part) {
			return false
		}
	}
	return true
}

// spellings are the endings American and British English spell apart
// (color/colour, center/centre, optimize/optimise, defense/defence,
// catalog/catalogue, modeling/modelling, judgment/judgement), each with
// the inflections that may follow it. Only word endings are swapped: in
// the middle of a word the same letters make other words
// ("morning"/"mourning").
var spellings = []struct {
	american, british string
	then              []string
}{
	{"or", "our", []string{"", "s", "ed", "ing", "al", "ally", "ful", "less", "able", "ite", "ites"}},
	{"er", "re", []string{"", "s"}},
	{"ered", "red", []string{""}},
	{"ering", "ring", []string{""}},
	{"ize", "ise", []string{"", "s", "d", "r", "rs"}},
	{"izing", "ising", []string{""}},
	{"ization", "isation", []string{"", "s"}},
	{"yze", "yse", []string{"", "s", "d", "r", "rs"}},
	{"yzing", "ysing", []string{""}},
	{"ense", "ence", []string{"", "s", "d"}},
	{"og", "ogue", []string{"", "s"}},
	{"eled", "elled", []string{""}},
	{"eling", "elling", []string{""}},
	{"eler", "eller", []string{"", "s"}},
	{"aled", "alled", []string{""}},
	{"aling", "alling", []string{""}},
	{"gment", "gement", []string{"", "s", "al"}},
}

// spelledOtherwise finds the word w as the book spells it when the book
// uses the other side's spelling of one of its endings.
func (bk *Book) spelledOtherwise(w string) (string, bool) {
	for _, sp := range spellings {
		for _, d := range [][2]string{{sp.american, sp.british}, {sp.british, sp.american}} {
			for _, then := range sp.then {
				end := d[0] + then
				if len(end) >= len(w) || !strings.HasSuffix(w, end) {
					continue
				}
				v := w[:len(w)-len(end)] + d[1] + then
				if _, ok := bk.vocab[v]; ok {
					return v, true
				}
			}
		}
	}
	return "", false
}
