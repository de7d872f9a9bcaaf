package analysis

import (
	"math"
	"sort"
	"strings"
)

// Related is a book word used where another is, and how strongly.
type Related struct {
	Stem     string
	Strength float64
}

// associations are the book's own related-term knowledge: two words are
// related when the book uses them in the same sentences far more often
// than chance. A reader who writes "spinning scanner" may mean the book's
// "LiDAR"; the book says both in one breath often enough to tell.
type associations struct {
	rel map[string][]Related
}

const (
	// maxRelated bounds the related words kept per word.
	maxRelated = 6
	// minPair is how many sentences must share two words before they count
	// as related; one shared sentence is chance.
	minPair = 3
	// maxStrength caps what a related word is worth against the word
	// itself: a relative is evidence, never proof.
	maxStrength = 0.6
)

func buildAssociations(bk *Book) *associations {
	count := map[string]int{}
	pair := map[[2]string]int{}
	for _, c := range bk.chunks {
		for _, sent := range sentencesOf(c.Text) {
			set := map[string]bool{}
			for _, t := range Tokenize(sent) {
				if Stopwords[t.Word] || QuestionWords[t.Word] || IsNumber(t.Word) || len(t.Stem) < 3 {
					continue
				}
				set[t.Stem] = true
			}
			terms := make([]string, 0, len(set))
			for s := range set {
				terms = append(terms, s)
				count[s]++
			}
			sort.Strings(terms)
			for i := range terms {
				for j := i + 1; j < len(terms); j++ {
					pair[[2]string{terms[i], terms[j]}]++
				}
			}
		}
	}
	rel := map[string][]Related{}
	for p, n := range pair {
		if n < minPair {
			continue
		}
		a, b := p[0], p[1]
		dice := 2 * float64(n) / float64(count[a]+count[b])
		if dice < 0.3 {
			continue
		}
		s := math.Min(maxStrength, dice)
		rel[a] = append(rel[a], Related{b, s})
		rel[b] = append(rel[b], Related{a, s})
	}
	for k, rs := range rel {
		sort.Slice(rs, func(i, j int) bool {
			if rs[i].Strength != rs[j].Strength {
				return rs[i].Strength > rs[j].Strength
			}
			return rs[i].Stem < rs[j].Stem
		})
		if len(rs) > maxRelated {
			rs = rs[:maxRelated]
		}
		rel[k] = rs
	}
	return &associations{rel: rel}
}

func (a *associations) of(stem string) []Related { return a.rel[stem] }

// sentencesOf splits text at line ends and sentence ends; good enough for
// counting which words go together.
func sentencesOf(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for _, s := range strings.SplitAfter(line, ". ") {
			if strings.TrimSpace(s) != "" {
				out = append(out, s)
			}
		}
	}
	return out
}
