package lexical

import "strings"

// contextWeight is what a word of a leading "once/after/before ..." clause
// is worth, against the rest of the question, when looking for the passage
// that answers it.
const contextWeight = 0.4

// stepOpeners begin a clause that says where the reader already is
// ("After installing Gazebo, how do I verify the bridge?"): the answer is
// about what follows the comma, not about the step already done.
var stepOpeners = []string{"once ", "after ", "before ", "having ", "now that "}

// focus lowers the weight of the words that only occur in a leading step
// clause or in the story told before the question itself, so that the
// search looks for the next step rather than the one the reader has
// finished, and a reader's "before our demo" does not count as much as
// what they ask. Those words still count: they tell which chapter the
// reader is in.
func focus(q query, question string) query {
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
	for _, t := range tokenize(s[comma+1:]) {
		main[t.stem] = true
	}
	lead := map[string]bool{}
	for _, t := range tokenize(s[:comma]) {
		lead[t.stem] = true
	}
	out := query{wantsNumber: q.wantsNumber, terms: make([]qterm, len(q.terms))}
	for i, t := range q.terms {
		if lead[t.stem] && !main[t.stem] {
			t.weight *= contextWeight
		}
		out.terms[i] = t
		out.total += t.weight
	}
	return out
}
