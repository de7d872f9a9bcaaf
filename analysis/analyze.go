package analysis

import (
	"strings"
	"sync"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// A Token is one word of a text: its surface form (lower-cased) and the
// stem that matching uses.
type Token struct {
	Word string
	Stem string
	// Part marks a piece of the compound word just before it
	// ("check" and "urdf" after "check_urdf").
	Part bool
}

// tokenized, when a test sets it (see export_test.go), sees every text
// Tokenize reads: it shows that a question is tokenized once per ask.
var tokenized func(text string)

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// isDash reports the dashes and hyphens of Unicode's dash punctuation
// (hyphen, non-breaking hyphen, figure, en and em dashes, horizontal
// bar, the minus sign and their small and full-width forms).
func isDash(r rune) bool {
	return r != '-' && (unicode.Is(unicode.Pd, r) || r == '\u2212')
}

// Tokenize splits text into lower-cased words. Identifiers such as
// qos_profile_sensor_data or check_urdf yield the whole identifier and its
// parts, so a reader who types "check urdf" still meets the command.
// Decimal numbers keep their point ("0.5"); a hyphen between digits
// ("10-50") splits, as readers write ranges many ways. Possessives and
// short contractions ("robot's", "don't") drop their tail. A Greek letter
// standing alone is read as its name: a book writes α, a reader types
// "alpha".
func Tokenize(text string) []Token { return tokenize(text, nil) }

// tokenize is Tokenize; with spans not nil it also lists the runes of
// text each token is read from, [start, end) (a word's parts, the
// word's).
func tokenize(text string, spans *[][2]int) []Token {
	if tokenized != nil {
		tokenized(text)
	}
	var out []Token
	runes := []rune(text)
	// Every dash is a hyphen: a book that writes "Sense–Think–Act" with
	// en dashes and a reader who types "sense-think-act" mean one word.
	for k, r := range runes {
		if isDash(r) {
			runes[k] = '-'
		}
	}
	n := len(runes)
	for i := 0; i < n; {
		if !isWordRune(runes[i]) {
			if k := operatorAt(runes, i); k > 0 {
				op := string(runes[i : i+k])
				out = append(out, Token{Word: op, Stem: op})
				spanOf(spans, len(out), i, i+k)
				for i < n && strings.ContainsRune(operatorRunes, runes[i]) {
					i++
				}
				continue
			}
			i++
			continue
		}
		j := i
		for j < n {
			r := runes[j]
			if isWordRune(r) {
				j++
				continue
			}
			joiner := r == '_' || r == '.' || r == '-'
			if joiner && j+1 < n && isWordRune(runes[j+1]) {
				if r == '-' && unicode.IsDigit(runes[j-1]) && unicode.IsDigit(runes[j+1]) {
					break
				}
				j++
				continue
			}
			break
		}
		raw := runes[i:j]
		word := strings.ToLower(string(raw))
		if name, ok := greekNames[word]; ok {
			word = name
		}
		out = appendWord(out, word)
		// camelCase and PascalCase identifiers also yield their words:
		// "ImuPublisher" is about publishers; each segment of a qualified
		// or joined name on its own ("PlanValidator.validate_plan").
		start := 0
		for k := 0; k <= len(raw); k++ {
			if k < len(raw) && raw[k] != '_' && raw[k] != '.' && raw[k] != '-' {
				continue
			}
			if parts := CamelParts(raw[start:k]); len(parts) > 1 {
				for _, p := range parts {
					out = append(out, Token{Word: p, Stem: Stem(p), Part: true})
				}
			}
			start = k + 1
		}
		spanOf(spans, len(out), i, j)
		i = j
		// Skip a possessive or contraction tail: 's, 't, 're, 've, 'll.
		if i+1 < n && (runes[i] == '\'' || runes[i] == '’') && unicode.IsLetter(runes[i+1]) {
			k := i + 1
			for k < n && unicode.IsLetter(runes[k]) {
				k++
			}
			if k-i-1 <= 2 {
				i = k
			}
		}
	}
	return out
}

// spanOf records that the tokens up to the n-th are read from runes
// [from, to).
func spanOf(spans *[][2]int, n, from, to int) {
	if spans == nil {
		return
	}
	for len(*spans) < n {
		*spans = append(*spans, [2]int{from, to})
	}
}

// operatorRunes make up the operators of programming languages and
// notations: ==, ===, !=, <=, ->, <-, =>, |>, %>%, ::, +=, &&, ||.
const operatorRunes = "=!<>|%&+-*/:~^?@$."

// operatorAt returns the length of the operator that starts at runes[i],
// 0 when none does. An operator is a whole run of operatorRunes, two to
// four of them once a closing '.', '?' or ':' is dropped ("===?" names
// ===); a run of one repeated character that Markdown or prose also
// writes (**, --, ~~, ..., :::, $$) is no
// operator, nor is a run with '//' (a URL, a comment) or one of points
// and hyphens alone (a number's).
func operatorAt(runes []rune, i int) int {
	if i > 0 && strings.ContainsRune(operatorRunes, runes[i-1]) {
		return 0
	}
	j := i
	for j < len(runes) && strings.ContainsRune(operatorRunes, runes[j]) {
		j++
	}
	if j-i < 2 {
		return 0
	}
	run := string(runes[i:j])
	if c := run[0]; strings.Count(run, string(c)) == len(run) && (strings.ContainsRune("*-~.$^", rune(c)) || c == ':' && len(run) > 2) {
		return 0
	}
	for len(run) > 2 && strings.ContainsRune(".?:", rune(run[len(run)-1])) {
		run = run[:len(run)-1]
	}
	if len(run) < 2 || len(run) > 4 || strings.Contains(run, "//") || strings.Trim(run, ".-") == "" {
		return 0
	}
	return len([]rune(run))
}

// IsOperator reports a token that is an operator (see operatorAt).
func IsOperator(w string) bool {
	return w != "" && strings.Trim(w, operatorRunes) == ""
}

// CamelParts splits "ImuPublisher" into "imu", "publisher"; words without
// an inner capital give nothing, and so do names with a one-letter part
// ("QoS", "iPhone", "getX"): those are acronyms and brand spellings, not
// words run together.
func CamelParts(rs []rune) []string {
	var parts []string
	start := 0
	for k := 1; k < len(rs); k++ {
		if unicode.IsUpper(rs[k]) && unicode.IsLower(rs[k-1]) {
			parts = append(parts, strings.ToLower(string(rs[start:k])))
			start = k
		}
	}
	if start == 0 {
		return nil
	}
	parts = append(parts, strings.ToLower(string(rs[start:])))
	for _, p := range parts {
		if len([]rune(p)) < 2 {
			return nil
		}
	}
	return parts
}

// greekNames names the lower-case Greek letters (capitals are lower-cased
// first; final sigma is sigma).
var greekNames = func() map[string]string {
	names := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma sigma tau upsilon phi chi psi omega")
	m := map[string]string{}
	for i, n := range names {
		m[string(rune('α'+i))] = n
	}
	return m
}()

func appendWord(out []Token, w string) []Token {
	out = append(out, Token{Word: w, Stem: Stem(w)})
	if strings.Contains(w, ".") && strings.ContainsAny(w, "_-") && !IsNumber(w) {
		// A qualified name's segments are names of their own:
		// node.create_publisher names create_publisher.
		for _, seg := range strings.Split(w, ".") {
			if strings.ContainsAny(seg, "_-") {
				out = append(out, Token{Word: seg, Stem: Stem(seg), Part: true})
			}
		}
	}
	if strings.ContainsAny(w, "_.-") && !IsNumber(w) {
		for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == '_' || r == '.' || r == '-' }) {
			out = append(out, Token{Word: p, Stem: Stem(p), Part: true})
		}
	}
	return out
}

// IsNumber reports a word made of digits, points and hyphens only.
func IsNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) && r != '.' && r != '-' {
			return false
		}
	}
	return true
}

// stems memoizes Stem: the same few thousand words recur in every
// question and passage. Bounded, since questions bring arbitrary words. A
// plain map under a read lock: reading a book looks up every word of it,
// and a sync.Map's lookups cost several times as much.
var (
	stemsMu sync.RWMutex
	stems   = map[string]string{}
)

const maxCachedStems = 200_000

// Stem reduces a word to the form matching compares. Numbers and
// identifiers stay as they are.
func Stem(w string) string {
	stemsMu.RLock()
	s, ok := stems[w]
	stemsMu.RUnlock()
	if ok {
		return s
	}
	s = computeStem(w)
	stemsMu.Lock()
	if len(stems) < maxCachedStems {
		stems[w] = s
	}
	stemsMu.Unlock()
	return s
}

func computeStem(w string) string {
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return w
		}
	}
	if len([]rune(w)) <= 3 {
		return w
	}
	return english.Stem(w, false)
}
