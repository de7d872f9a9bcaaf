package report

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// stopWords are the words that say nothing about what a question is
// about: function words and the verbs and nouns every question uses.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are as at be
because been before being below between both but by can cannot could did do does doing done down during each
either else ever every few for from further get gets getting give go goes going got had has have having he her
here hers him his how however i if in into is it its itself just least less let like made make makes many may
me might more most much must my need needs no nor not now of off often on once one only or other our ours out
over own per please rather really same say says see seem she should show since so some something still such
tell than that the their theirs them then there these they thing things this those though through to too two
under until up upon us use used uses using very via want was way ways we well were what whatever when where
whether which while who whom whose why will with within without would yes yet you your yours
explain explained describe example examples mean means meaning work works working know difference different
good best better help possible question questions answer answers book textbook chapter course section kind
kinds type types lot lots`) {
		m[w] = true
	}
	return m
}()

// words returns the content words of s in order of first appearance,
// each once: lower case, stop words and one-letter words left out,
// a plural's "s" dropped so that "robots" and "robot" are one word.
func words(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(f)) < 2 || stopWords[f] {
			continue
		}
		w := stem(f)
		if stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// stem drops a plural's "s" from longer words; good enough to put
// "joints" with "joint" without a stemmer's surprises.
func stem(w string) string {
	if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
		return w[:len(w)-1]
	}
	return w
}

// vocabulary is how common each word is in the book: a word the book
// rarely uses says more about a refused question than one on every page.
type vocabulary struct {
	docs int
	df   map[string]int
}

func newVocabulary(texts []string) vocabulary {
	v := vocabulary{docs: len(texts), df: map[string]int{}}
	for _, t := range texts {
		for _, w := range words(t) {
			v.df[w]++
		}
	}
	return v
}

// idf is the word's inverse document frequency in the book (smoothed; 1
// for every word when there is no book).
func (v vocabulary) idf(w string) float64 {
	if v.docs == 0 {
		return 1
	}
	return math.Log(float64(v.docs+1)/float64(v.df[w]+1)) + 1
}

// refused is one refused question kept for grouping.
type refused struct {
	text   string
	words  []string
	reason string
	score  *float64 // the refusal log's max_score, when known
}

// group is a set of refused questions keyed by the word that says most
// about them.
type group struct {
	key       string
	questions []int // indexes into the refused questions
}

// groupRefusals puts each refused question in the group of its most
// informative word: the word that weighs most by how many refused
// questions use it times how rare it is in the book (ties: alphabetical
// order). Questions that share that word were about the same thing; the
// weight favours words many students used, so a group forms around a
// common word, not around one student's spelling. Deterministic: the same
// history gives the same groups.
func groupRefusals(qs []refused, vocab vocabulary) []group {
	df := map[string]int{}
	for _, q := range qs {
		for _, w := range q.words {
			df[w]++
		}
	}
	byKey := map[string]*group{}
	var order []string
	for i, q := range qs {
		key, best := "", -1.0
		for _, w := range q.words {
			weight := float64(df[w]) * vocab.idf(w)
			if weight > best || weight == best && w < key {
				key, best = w, weight
			}
		}
		g, ok := byKey[key]
		if !ok {
			g = &group{key: key}
			byKey[key] = g
			order = append(order, key)
		}
		g.questions = append(g.questions, i)
	}
	out := make([]group, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if len(out[i].questions) != len(out[j].questions) {
			return len(out[i].questions) > len(out[j].questions)
		}
		return out[i].key < out[j].key
	})
	return out
}

// label names a group by its key word and the words that at least half
// of its questions (and two or more; any word of a lone question) share
// with it, the weightiest three in the order the questions use them
// ("banana bread").
func label(g group, qs []refused, vocab vocabulary) []string {
	count := map[string]int{}
	pos := map[string]int{}
	for _, i := range g.questions {
		for p, w := range qs[i].words {
			count[w]++
			pos[w] += p
		}
	}
	var ws []string
	for w, n := range count {
		if w == g.key || n*2 >= len(g.questions) && (n >= 2 || len(g.questions) == 1) {
			ws = append(ws, w)
		}
	}
	sort.Slice(ws, func(i, j int) bool {
		if (ws[i] == g.key) != (ws[j] == g.key) {
			return ws[i] == g.key
		}
		if count[ws[i]] != count[ws[j]] {
			return count[ws[i]] > count[ws[j]]
		}
		if a, b := vocab.idf(ws[i]), vocab.idf(ws[j]); a != b {
			return a > b
		}
		return ws[i] < ws[j]
	})
	if len(ws) > 3 {
		ws = ws[:3]
	}
	sort.SliceStable(ws, func(i, j int) bool {
		return float64(pos[ws[i]])/float64(count[ws[i]]) < float64(pos[ws[j]])/float64(count[ws[j]])
	})
	return ws
}
