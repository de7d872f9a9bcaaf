package lexical

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"slices"
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

// englishWords is the word list, read on first use: one string holding
// every word and a sorted slice of views into it (about 2 MB).
var englishWords = sync.OnceValue(func() []string {
	zr, err := gzip.NewReader(bytes.NewReader(americanEnglish))
	if err != nil {
		return nil
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
})

// isEnglishWord reports whether w (lower-case) is an English word. A
// question word that is one is what the reader meant, even when the book
// never uses it: repairing it to a book word would answer a question the
// reader did not ask ("inception" is not a misspelt "perception"). A
// hyphenated compound of English words ("real-life") is English too; the
// list holds few of them.
func isEnglishWord(w string) bool {
	words := englishWords()
	for _, part := range strings.Split(w, "-") {
		if _, ok := slices.BinarySearch(words, part); !ok {
			return false
		}
	}
	return true
}
