package page

import (
	"fmt"
	"runtime"
	"sync"
	"unicode"
	"unicode/utf8"
	"weak"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// The cl100k_base encoder takes about 11 MB of maps and is only needed
// while a book is chunked, so the package keeps a weak pointer to it: Load
// holds it while it runs, and a server that ingested at start gives the
// memory back. tiktoken.GetEncoding would keep the ranks for the life of
// the process, so the encoder is built here from the same parts.
var (
	encMu   sync.Mutex
	encWeak weak.Pointer[tiktoken.Tiktoken]
)

// cl100kPattern and cl100kSpecial define cl100k_base next to its ranks
// (the pre-tokeniser and the special tokens, as tiktoken-go has them);
// TestEncoderIsCL100K checks them against tiktoken.GetEncoding.
const cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

var cl100kSpecial = map[string]int{
	tiktoken.ENDOFTEXT:   100257,
	tiktoken.FIM_PREFIX:  100258,
	tiktoken.FIM_MIDDLE:  100259,
	tiktoken.FIM_SUFFIX:  100260,
	tiktoken.ENDOFPROMPT: 100276,
}

// encoder returns the cl100k_base encoder, loading it again when nothing
// held it through the last garbage collection.
func encoder() (*tiktoken.Tiktoken, error) {
	encMu.Lock()
	defer encMu.Unlock()
	if e := encWeak.Value(); e != nil {
		return e, nil
	}
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe("cl100k_base.tiktoken")
	if err != nil {
		return nil, fmt.Errorf("load cl100k_base: %w", err)
	}
	bpe, err := tiktoken.NewCoreBPE(ranks, cl100kSpecial, cl100kPattern)
	if err != nil {
		return nil, fmt.Errorf("load cl100k_base: %w", err)
	}
	special := map[string]any{}
	for k := range cl100kSpecial {
		special[k] = true
	}
	e := tiktoken.NewTiktoken(bpe, &tiktoken.Encoding{Name: tiktoken.MODEL_CL100K_BASE, PatStr: cl100kPattern, MergeableRanks: ranks, SpecialTokens: cl100kSpecial}, special)
	encWeak = weak.Make(e)
	return e, nil
}

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
	enc, err := encoder()
	if err != nil {
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

// HoldEncoder keeps the token encoder loaded until release is called: a
// book's pages are chunked one after another, and the encoder would
// otherwise be loaded again after each garbage collection.
func HoldEncoder() (release func()) {
	enc, _ := encoder()
	return func() { runtime.KeepAlive(enc) }
}
