package markdown

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

var (
	encOnce sync.Once
	enc     *tiktoken.Tiktoken
	encErr  error
)

// maxRun bounds how many runes of one kind (letters, digits, spaces or
// other symbols) reach the encoder at once. cl100k's byte-pair merge costs
// the square of a pre-token's length, and a pre-token is such a run: a
// 1 MB "word" or a 2,000-space indent would take minutes to count. Prose
// and code have no runs this long, so their counts are cl100k's own.
const maxRun = 64

// CountTokens counts cl100k_base tokens. The encoding ships inside the
// binary (tiktoken-go-loader), so nothing is downloaded. A run longer
// than maxRun runes is counted from its first maxRun runes, scaled by its
// length: linear in the text, and close for the repetitive runs (rules,
// indents, pasted blobs) that are this long.
func CountTokens(s string) int {
	encOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		enc, encErr = tiktoken.GetEncoding("cl100k_base")
	})
	if encErr != nil {
		// The embedded encoding cannot fail to load; if it ever does,
		// fall back to a close estimate rather than refusing to ingest.
		return len(s) / 4
	}
	n := 0
	for _, p := range bpePieces(s) {
		if p.run == "" {
			n += len(enc.EncodeOrdinary(p.text))
			continue
		}
		head := len(enc.EncodeOrdinary(p.text))
		n += (head*len(p.run) + len(p.text) - 1) / len(p.text)
	}
	return n
}

// countPiece is a part of a text to count: ordinary text, or the first maxRun
// runes of a long run (text) and the whole run (run).
type countPiece struct {
	text string
	run  string
}

// bpePieces cuts s around its runs of more than maxRun runes of one kind.
func bpePieces(s string) []countPiece {
	var out []countPiece
	start, runStart, runLen, kind := 0, 0, 0, -1
	flush := func(end int) {
		if runLen > maxRun {
			if runStart > start {
				out = append(out, countPiece{text: s[start:runStart]})
			}
			head := runStart
			for i := 0; i < maxRun; i++ {
				_, size := utf8.DecodeRuneInString(s[head:])
				head += size
			}
			out = append(out, countPiece{text: s[runStart:head], run: s[runStart:end]})
			start = end
		}
	}
	for i, r := range s {
		if k := runeKind(r); k != kind {
			flush(i)
			kind, runStart, runLen = k, i, 0
		}
		runLen++
	}
	flush(len(s))
	if start < len(s) || len(out) == 0 {
		out = append(out, countPiece{text: s[start:]})
	}
	return out
}

func runeKind(r rune) int {
	switch {
	case unicode.IsLetter(r):
		return 0
	case unicode.IsNumber(r):
		return 1
	case unicode.IsSpace(r):
		return 2
	}
	return 3
}
