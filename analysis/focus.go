package analysis

import "strings"

// contextWeight is what a word of a leading "once/after/before ..." clause
// is worth, against the rest of the question, when looking for the passage
// that answers it.
const contextWeight = 0.4

// stepOpeners begin a clause that says where the reader already is
// ("After installing Gazebo, how do I verify the bridge?"): the answer is
// about what follows the comma, not about the step already done.
var stepOpeners = []string{"once ", "after ", "before ", "having ", "now that "}

// Focus lowers the weight of the words that only occur in a leading step
// clause or in the story told before the question itself, so that the
// search looks for the next step rather than the one the reader has
// finished, and a reader's "before our demo" does not count as much as
// what they ask. Those words still count: they tell which chapter the
// reader is in.
func Focus(q Query, question string) Query {
	s := strings.ToLower(strings.TrimSpace(question))
	opens := false
	for _, o := range stepOpeners {
		opens = opens || strings.HasPrefix(s, o)
	}
	comma := strings.IndexByte(s, ',')
	if !opens || comma < 0 || strings.TrimSpace(s[comma+1:]) == "" {
		comma = -1
		// A story before the question: "My stack works in Gazebo. How
		// should I measure the gap?"
		if i := strings.LastIndexAny(strings.TrimRight(s, "?!. "), ".!?"); i > 0 && strings.HasSuffix(s, "?") {
			comma = i
		}
	}
	if comma < 0 {
		return q
	}
	main := map[string]bool{}
	for _, t := range Tokenize(s[comma+1:]) {
		main[t.Stem] = true
	}
	lead := map[string]bool{}
	for _, t := range Tokenize(s[:comma]) {
		lead[t.Stem] = true
	}
	out := Query{WantsNumber: q.WantsNumber, Terms: make([]Term, len(q.Terms))}
	for i, t := range q.Terms {
		if lead[t.Stem] && !main[t.Stem] {
			t.Weight *= contextWeight
		}
		out.Terms[i] = t
		out.Total += t.Weight
	}
	return out
}
