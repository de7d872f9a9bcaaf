package page

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
	"weak"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// The cl100k_base ranks take about 11 MB and are only needed while a
// book is chunked, so the package keeps a weak pointer to them: Load holds
// them while it runs, and a server that ingested at start gives the memory
// back. tiktoken.GetEncoding would keep them for the life of the process.
var (
	encMu   sync.Mutex
	encWeak weak.Pointer[bpe]
)

// bpe counts cl100k_base tokens: the text is cut into pre-tokens by
// preToken and each pre-token is merged by its ranks. tiktoken-go cuts
// with a backtracking regular expression that costs about half a second a
// megabyte; the cut written out here gives the same pre-tokens (the tests
// compare counts with tiktoken-go's) for a tenth of that.
type bpe struct {
	ranks map[string]int
}

// encoder returns the cl100k_base ranks, loading them again when nothing
// held them through the last garbage collection.
func encoder() (*bpe, error) {
	encMu.Lock()
	defer encMu.Unlock()
	if e := encWeak.Value(); e != nil {
		return e, nil
	}
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe("cl100k_base.tiktoken")
	if err != nil {
		return nil, fmt.Errorf("load cl100k_base: %w", err)
	}
	e := &bpe{ranks: ranks}
	encWeak = weak.Make(e)
	return e, nil
}

// count is the number of cl100k_base tokens of s, as tiktoken-go's
// EncodeOrdinary gives them. Like tiktoken-go, it reads each byte that is
// not UTF-8 as U+FFFD.
func (e *bpe) count(s string) int {
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	n := 0
	for i := 0; i < len(s); {
		j := preToken(s, i)
		n += e.merge(s[i:j])
		i = j
	}
	return n
}

// merge counts the tokens of one pre-token: a known token is one, else
// its bytes are merged pair by pair, the pair of lowest rank first (the
// leftmost of equals), until no pair is a token.
func (e *bpe) merge(p string) int {
	if len(p) <= 1 {
		return len(p)
	}
	if _, ok := e.ranks[p]; ok {
		return 1
	}
	// starts are the parts' offsets and the end; rank[i] is the rank of
	// parts i and i+1 joined, noRank when that is no token.
	var startBuf, rankBuf [96]int
	starts, rank := startBuf[:0], rankBuf[:0]
	for i := 0; i <= len(p); i++ {
		starts = append(starts, i)
	}
	pairRank := func(i int) int {
		if i+2 >= len(starts) {
			return noRank
		}
		if r, ok := e.ranks[p[starts[i]:starts[i+2]]]; ok {
			return r
		}
		return noRank
	}
	for i := 0; i+1 < len(starts); i++ {
		rank = append(rank, pairRank(i))
	}
	for len(starts) > 2 {
		best := 0
		for i := range rank {
			if rank[i] < rank[best] {
				best = i
			}
		}
		if rank[best] == noRank {
			break
		}
		starts = slices.Delete(starts, best+1, best+2)
		rank = slices.Delete(rank, best+1, best+2)
		rank[best] = pairRank(best)
		if best > 0 {
			rank[best-1] = pairRank(best - 1)
		}
	}
	return len(starts) - 1
}

const noRank = math.MaxInt

// preToken is the end of the pre-token that starts at byte i of s, as
// cl100k_base's pattern cuts it (the first alternative that matches wins):
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)     a contraction
//	[^\r\n\p{L}\p{N}]?\p{L}+          a word, with one sign or space before it
//	\p{N}{1,3}                       up to three digits
//	 ?[^\s\p{L}\p{N}]+[\r\n]*          signs, with a space before and line ends after
//	\s*[\r\n]+                      spaces up to the last line end among them
//	\s+(?!\S)                        spaces but the last before a non-space
//	\s+                              spaces
//
// \s is unicode.IsSpace, \p{L} and \p{N} are Unicode's letters and
// numbers, as in the regular expression engine tiktoken-go uses.
func preToken(s string, i int) int {
	r, w := utf8.DecodeRuneInString(s[i:])
	if r == '\'' {
		if n := contraction(s[i+w:]); n > 0 {
			return i + w + n
		}
	}
	next, nw := utf8.DecodeRuneInString(s[i+w:])
	hasNext := i+w < len(s)
	switch {
	case unicode.IsLetter(r):
		return skip(s, i+w, unicode.IsLetter, -1)
	case r != '\r' && r != '\n' && !unicode.IsNumber(r) && hasNext && unicode.IsLetter(next):
		return skip(s, i+w+nw, unicode.IsLetter, -1)
	case unicode.IsNumber(r):
		return skip(s, i+w, unicode.IsNumber, 2)
	case isSign(r):
		return skip(s, skip(s, i+w, isSign, -1), isLineEnd, -1)
	case r == ' ' && hasNext && isSign(next):
		return skip(s, skip(s, i+w+nw, isSign, -1), isLineEnd, -1)
	}
	// r is a space: the run of spaces it starts decides.
	end, lastEnd, last := i, -1, i
	for end < len(s) {
		c, cw := utf8.DecodeRuneInString(s[end:])
		if !unicode.IsSpace(c) {
			break
		}
		if isLineEnd(c) {
			lastEnd = end + cw
		}
		last = end
		end += cw
	}
	switch {
	case lastEnd >= 0:
		return lastEnd
	case end == len(s) || last == i:
		return end
	}
	return last
}

// skip is the offset after the runes from i on that keep holds for, at
// most limit of them (no limit when negative).
func skip(s string, i int, keep func(rune) bool, limit int) int {
	for i < len(s) && limit != 0 {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !keep(r) {
			break
		}
		i += w
		limit--
	}
	return i
}

// contraction is the length of the contraction suffix ("s", "ll", …,
// any case) s starts with, 0 for none.
func contraction(s string) int {
	for _, c := range []string{"s", "t", "re", "ve", "m", "ll", "d"} {
		n, ok := 0, true
		for _, want := range c {
			r, w := utf8.DecodeRuneInString(s[n:])
			if n >= len(s) || unicode.ToLower(r) != want {
				ok = false
				break
			}
			n += w
		}
		if ok {
			return n
		}
	}
	return 0
}

// isSign is a rune that is neither a space, a letter nor a number.
func isSign(r rune) bool { return !unicode.IsSpace(r) && !unicode.IsLetter(r) && !unicode.IsNumber(r) }

func isLineEnd(r rune) bool { return r == '\r' || r == '\n' }

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
			n += enc.count(p.text)
			continue
		}
		head := enc.count(p.text)
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
