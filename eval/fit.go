package eval

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
	"github.com/textbook-rag/rag/answer"
	"github.com/textbook-rag/rag/extractive"
	"github.com/textbook-rag/rag/logistic"
	"github.com/textbook-rag/rag/tutor"
)

// Book is one labelled book of a books.tsv file.
type Book struct {
	// Name is the book folder's base name.
	Name string
	// Questions and Docs are the question file and the book folder,
	// resolved against the books file's folder.
	Questions string
	Docs      string
	// Field is the book's field from fields.tsv beside the books file;
	// a book it does not name is a field of its own (Name).
	Field string
}

// ReadBooks reads a books.tsv file (../shared/eval/FORMAT.md): one book a
// line, the question file and the book folder separated by a tab, paths
// relative to the file (or absolute); '#' starts a comment line. Each
// book's field comes from fields.tsv in the same folder when there is one.
func ReadBooks(path string) ([]Book, error) {
	dir := filepath.Dir(path)
	var books []Book
	err := readTSV(path, "a question file and a book folder", func(cols [2]string) {
		docs := resolve(dir, cols[1])
		books = append(books, Book{Name: filepath.Base(docs), Questions: resolve(dir, cols[0]), Docs: docs})
	})
	if err != nil {
		return nil, fmt.Errorf("books: %w", err)
	}
	if len(books) == 0 {
		return nil, fmt.Errorf("books %s: no books", path)
	}
	fields := map[string]string{}
	err = readTSV(filepath.Join(dir, "fields.tsv"), "a book folder and its field", func(cols [2]string) {
		fields[resolve(dir, cols[0])] = cols[1]
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("fields: %w", err)
	}
	for i, b := range books {
		books[i].Field = cmp.Or(fields[b.Docs], b.Name)
	}
	return books, nil
}

// resolve reads a path of a books or fields file relative to its folder.
func resolve(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// readTSV calls line with the two tab-separated columns of every line of
// path that is not blank or a '#' comment.
func readTSV(path, want string, line func([2]string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		parts := strings.Split(text, "\t")
		if len(parts) != 2 || strings.TrimSpace(parts[0]) == "" || strings.TrimSpace(parts[1]) == "" {
			return fmt.Errorf("%s line %d: want %s separated by a tab", path, n, want)
		}
		line([2]string{strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])})
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Labelled is one book's questions as the answerer's fit sees them: for
// each question that reached the answerer (it passed the spec's score
// gates and the out-of-scope patterns), every candidate passage's
// features and whether quoting it would have been a correct answer.
type Labelled struct {
	Book string
	// Field is the book's field: Fit holds a field's books out together.
	Field string
	// Questions counts every question of the book, the base of the
	// wrong-answer budget.
	Questions int
	Asked     []Asked
	// Selected are the book's questions about a reader's selection, with
	// the score the answerer gives the selection (answer.SelectionScore):
	// the fit chooses the selected-text threshold on them.
	Selected []Selection
}

// Selection is one labelled question about a reader's selection.
type Selection struct {
	ID    string
	Score float64
	// Correct: answering from the selection would be scored right (never
	// for a question that must be refused).
	Correct bool
	// Refuse: the question must be refused.
	Refuse bool
}

// Asked is one question that reached the answerer.
type Asked struct {
	ID       string
	Category string
	X        [][]float64
	// Correct[i]: quoting candidate i answers the question as eval scores
	// it (every answer term, a source at the gold section). Always false
	// for a question that must be refused.
	Correct []bool
	// Section names what each candidate's probability adds up with when
	// the answerer picks (answer.Candidate.Group): its section (chapter ›
	// heading), or the first section of the same text.
	Section []string
	// AtGold[i]: quoting candidate i cites the gold section, whether or
	// not the quote holds every answer term. It tells a question whose
	// answering section is not among the candidates from one whose
	// quote of it falls short.
	AtGold []bool
}

// recorder stands in for the tutor's evidence finder: it records the
// candidates of each question that reaches the answerer and answers none,
// so that the fit sees exactly the chunks the tutor's flow passes on.
type recorder struct {
	ans  *answer.Answerer
	seen []answer.Candidate
	hit  bool
}

func (r *recorder) Read(question string) *analysis.Question { return r.ans.Read(question) }

func (r *recorder) Evidence(ctx context.Context, question *analysis.Question, chunks []rag.ScoredChunk) []rag.Passage {
	r.seen, r.hit = r.ans.Candidates(ctx, question, chunks), true
	return nil
}

func (r *recorder) SelectedEvidence(question *analysis.Question, selected string) []rag.Passage {
	return r.ans.SelectedEvidence(question, selected)
}

func (r *recorder) Topic(question *analysis.Question) string { return r.ans.Topic(question) }

// Collect runs the questions without selected text through a copy of t
// whose evidence finder records the candidates, and labels each
// candidate by scoring the extractive answer quoting it would give.
func Collect(ctx context.Context, book string, t *tutor.Tutor, ans *answer.Answerer, qs []Question, chunk func(id string) (rag.Chunk, bool)) (*Labelled, error) {
	rec := &recorder{ans: ans}
	tt := *t
	tt.Evidence, tt.LLM = rec, nil
	out := &Labelled{Book: book, Questions: len(qs)}
	for _, q := range qs {
		if q.SelectedText != "" {
			sel, err := labelSelection(ctx, ans, q)
			if err != nil {
				return nil, err
			}
			out.Selected = append(out.Selected, sel)
			continue
		}
		rec.hit, rec.seen = false, nil
		req := rag.ChatRequest{Question: q.Question, SessionID: sessionID(q.ID)}
		if err := req.Normalize(); err != nil {
			return nil, fmt.Errorf("%s: %w", q.ID, err)
		}
		if _, err := tt.Ask(ctx, req, nil); err != nil {
			return nil, fmt.Errorf("%s: %w", q.ID, err)
		}
		if !rec.hit || len(rec.seen) == 0 {
			continue
		}
		a := Asked{ID: q.ID, Category: q.Category}
		for _, c := range rec.seen {
			a.X = append(a.X, c.Features)
			ok, gold := false, false
			if q.Expect == "answer" {
				g, err := extractive.Generator{}.Generate(ctx, rag.GenerateRequest{Question: q.Question, Evidence: c.Passages}, nil)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", q.ID, err)
				}
				sources := tutor.SourcesOf(c.Passages)
				ok = Score(q, rag.ChatResponse{Answer: g.Text, Sources: sources}, chunk).Correct
				gold = hasGoldSource(q, sources, chunk)
			}
			a.Correct = append(a.Correct, ok)
			a.AtGold = append(a.AtGold, gold)
			a.Section = append(a.Section, c.Group)
		}
		out.Asked = append(out.Asked, a)
	}
	return out, nil
}

// labelSelection scores a question's selection and labels answering it
// as eval would score the tutor's answer from it.
func labelSelection(ctx context.Context, ans *answer.Answerer, q Question) (Selection, error) {
	score, passages := ans.SelectionScore(ans.Read(q.Question), q.SelectedText)
	sel := Selection{ID: q.ID, Score: score, Refuse: q.Expect != "answer"}
	if sel.Refuse || len(passages) == 0 {
		return sel, nil
	}
	g, err := extractive.Generator{}.Generate(ctx, rag.GenerateRequest{Question: q.Question, Evidence: passages}, nil)
	if err != nil {
		return sel, fmt.Errorf("%s: %w", q.ID, err)
	}
	sel.Correct = missingTerm(g.Text, q.AnswerTerms) == ""
	return sel, nil
}

// FitOptions are the fit's settings; DefaultFitOptions has their values.
type FitOptions struct {
	// Without names features to leave out (see WithoutFeatures).
	Without []string
	// L2 is the regularisation of the logistic regression, on
	// standardised features; 0 chooses it from L2Grid in
	// cross-validation.
	L2 float64
	// WrongCost is what a wrong answer costs, counted in right answers:
	// the threshold is the one at which the held-out picks score best,
	// +1 for each right answer and -WrongCost for each wrong one.
	WrongCost float64
	// Cache, when set, keeps every weights fit by the books it was fitted
	// on, across calls: the folds of a cross-validation fit the same
	// book sets again and again (leave-one-field-out's inner fit without
	// fields a and b is the outer fit without b's inner fit without a).
	Cache *FitCache
	// Members fits one member per field, without that field's books, and
	// judges a pick by the least probability any of them gives it (the
	// fit before the curve was the judge); for measuring what they
	// change.
	Members bool
}

// DefaultWrongCost is what a confident wrong answer costs against a right
// one. A reader takes a wrong answer that sounds right for the book's
// word, and a refusal sends them to the book, so a wrong answer costs
// more than a refusal gains. Six is where the held-out folds stay within
// the 2% wrong-answer bar on a book or a field the fit never saw (23
// books, each left out: 61.7% worded right at 1.8% wrong; each field left
// out: 59.4% at 1.9%); at four they do not (2.3%, 2.2%), and at eight
// they give up a point of right answers for a tenth of a point of wrong
// ones. Unlike a budget, a cost keeps its meaning where the curve is flat:
// a threshold is lowered only while it adds more than six right answers
// for each wrong one.
const DefaultWrongCost = 6

// DefaultFitOptions choose the L2 in cross-validation and price a wrong
// answer at DefaultWrongCost.
func DefaultFitOptions() FitOptions { return FitOptions{WrongCost: DefaultWrongCost} }

// L2Grid are the regularisations Fit chooses among.
var L2Grid = []float64{3, 10, 30, 100}

// Fit fits the answerer's model on the labelled books: the weights on
// every book's candidates, and the threshold (and the L2) on
// leave-one-field-out predictions: each field's questions scored by a
// model fitted on the other fields' books, so that the threshold is
// chosen on questions of a kind the model never saw, as a course team's
// book is. With one field the threshold is chosen in-sample.
func Fit(books []*Labelled, opt FitOptions) (*answer.Model, error) {
	if opt.WrongCost <= 0 {
		return nil, fmt.Errorf("fit: a wrong answer must cost something (wrong cost %v)", opt.WrongCost)
	}
	f := newFitter(books, opt.Cache)
	l2 := opt.L2
	if l2 == 0 {
		// The regularisation whose held-out picks score best at their
		// best threshold; the stronger on a tie.
		bestScore := math.Inf(-1)
		for _, c := range L2Grid {
			picks, err := f.heldOutPicks(c, opt.Members)
			if err != nil {
				return nil, err
			}
			if _, score := threshold(picks, opt.WrongCost); score >= bestScore {
				bestScore, l2 = score, c
			}
		}
	}
	m, err := f.model(l2, nil, opt.Members)
	if err != nil {
		return nil, err
	}
	picks, err := f.heldOutPicks(l2, opt.Members)
	if err != nil {
		return nil, err
	}
	m.Threshold, _ = threshold(picks, opt.WrongCost)
	m.SelectedThreshold = selectedThreshold(books)
	m.Fit.L2, m.Fit.WrongCost = l2, opt.WrongCost
	for _, b := range books {
		m.Fit.Books = append(m.Fit.Books, b.Book)
		m.Fit.Questions += b.Questions
		for _, a := range b.Asked {
			m.Fit.Pairs += len(a.X)
			for _, c := range a.Correct {
				if c {
					m.Fit.Positives++
				}
			}
		}
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// FitCache keeps weights fits by the books they were fitted on and their
// L2; it is safe for concurrent use, and a fit asked for twice at once is
// made once.
type FitCache struct {
	mu   sync.Mutex
	fits map[string]*cachedFit
}

type cachedFit struct {
	once sync.Once
	w    logistic.Fitted
	err  error
}

// weights fits in (named by key) at l2, or returns the fit made before.
func (c *FitCache) weights(key string, in []*Labelled, l2 float64) (logistic.Fitted, error) {
	c.mu.Lock()
	if c.fits == nil {
		c.fits = map[string]*cachedFit{}
	}
	e, ok := c.fits[key]
	if !ok {
		e = &cachedFit{}
		c.fits[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.w, e.err = fitWeights(in, l2) })
	return e.w, e.err
}

// fitter fits weights on the books less some groups (fields, or books),
// each set once.
type fitter struct {
	books  []*Labelled
	group  func(*Labelled) string
	groups []string
	cache  *FitCache
}

func newFitter(books []*Labelled, cache *FitCache) *fitter {
	if cache == nil {
		cache = &FitCache{}
	}
	f := &fitter{books: books, group: (*Labelled).field, cache: cache}
	for _, b := range books {
		if !slices.Contains(f.groups, f.group(b)) {
			f.groups = append(f.groups, f.group(b))
		}
	}
	return f
}

// without fits the books outside the groups left out; ok is false when
// no book is left.
func (f *fitter) without(l2 float64, out ...string) (w logistic.Fitted, ok bool, err error) {
	var in []*Labelled
	var names []string
	for _, b := range f.books {
		if !slices.Contains(out, f.group(b)) {
			in = append(in, b)
			names = append(names, b.Book)
		}
	}
	if len(in) == 0 {
		return w, false, nil
	}
	slices.Sort(names)
	w, err = f.cache.weights(fmt.Sprint(l2, names), in, l2)
	return w, err == nil, err
}

// model is the model fitted without the groups out, with a member for
// each further group left out when members is set.
func (f *fitter) model(l2 float64, out []string, members bool) (*answer.Model, error) {
	w, ok, err := f.without(l2, out...)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("fit: no book left without %v", out)
	}
	names := answer.FeatureNames()
	if len(w.Weights) > len(names) {
		names = answer.MeaningFeatureNames()
	}
	m := &answer.Model{Features: names, Mean: w.Mean, Scale: w.Scale, Weights: w.Weights, None: w.None}
	if !members || len(f.groups)-len(out) < 2 {
		return m, nil
	}
	for _, g := range f.groups {
		if slices.Contains(out, g) {
			continue
		}
		mw, ok, err := f.without(l2, append(slices.Clone(out), g)...)
		if err != nil {
			return nil, err
		}
		if ok {
			m.Members = append(m.Members, answer.Member{Without: g, Mean: mw.Mean, Scale: mw.Scale, Weights: mw.Weights, None: mw.None})
		}
	}
	return m, nil
}

// heldOutPicks predicts each group's questions with a model fitted on the
// other groups' books (leave-one-field-out: the case of a course team's
// book, which has no sibling among the training books), or on all the
// books when there is one group; with members, each fitted without one
// further group.
func (f *fitter) heldOutPicks(l2 float64, members bool) ([]pick, error) {
	var picks []pick
	for _, g := range f.groups {
		var out []string
		if len(f.groups) > 1 {
			out = []string{g}
		}
		m, err := f.model(l2, out, members)
		if err != nil {
			return nil, err
		}
		for _, b := range f.books {
			if f.group(b) == g {
				picks = append(picks, picksOf(m, b)...)
			}
		}
	}
	return picks, nil
}

// field is the book's field, or the book itself when it names none.
func (l *Labelled) field() string { return cmp.Or(l.Field, l.Book) }

func fitWeights(books []*Labelled, l2 float64) (logistic.Fitted, error) {
	var groups []logistic.Group
	for _, b := range books {
		for _, a := range b.Asked {
			groups = append(groups, logistic.Group{X: a.X, Right: a.Correct})
		}
	}
	if len(groups) == 0 {
		return logistic.Fitted{}, fmt.Errorf("fit: no question reached the answerer")
	}
	return logistic.Fit(groups, l2)
}

// pick is what the answerer would do with one question: quote its most
// probable candidate, which is right or wrong.
type pick struct {
	p       float64
	correct bool
}

// picksOf chooses, as the answerer does (answer.Model.Pick), each
// question's candidate.
func picksOf(m *answer.Model, b *Labelled) []pick {
	var out []pick
	for _, a := range b.Asked {
		best, p := m.Pick(a.X, m.Probs(a.X), a.Section)
		out = append(out, pick{p: p, correct: a.Correct[best]})
	}
	return out
}

// wrongCost is what a wrong answer from a reader's selection costs
// against the +1 of a right answer or refusal (a selection that holds the
// answer, refused, costs 0): a wrong answer that sounds right is worse
// than a refusal. At 1 (eval's CRAG score) the best threshold is flat and
// jumps between 0.46 and 0.65 as one book is left out (leave-one-book-out
// over seventeen books: 174 right, 13 wrong); at 2 or 3 it is 0.65 in
// every fold (179 right, 5 wrong; the hand-set 0.45 before: 184, 15).
const wrongCost = 2

// selectedThreshold is the selection score at and above which a reader's
// selection is answered from: the one under which the labelled
// selections score best (+1 for a right answer or a right refusal, 0 for
// refusing a selection that holds the answer, -wrongCost for a wrong
// answer), the higher on a tie. It lies halfway
// between the lowest score answered and the next below. Without labelled
// selections it is ZeroModel's.
func selectedThreshold(books []*Labelled) float64 {
	var sels []Selection
	for _, b := range books {
		sels = append(sels, b.Selected...)
	}
	if len(sels) == 0 {
		return answer.ZeroModel().SelectedThreshold
	}
	// Answering at the lowest candidate t answers every selection scoring
	// t or more; the candidates run down from 1.
	scores := []float64{1}
	for _, s := range sels {
		if s.Score > 0 {
			scores = append(scores, s.Score)
		}
	}
	slices.Sort(scores)
	scores = slices.Compact(scores)
	slices.Reverse(scores)
	best, bestScore := 1.0, math.Inf(-1)
	for _, t := range scores {
		score := 0.0
		for _, s := range sels {
			switch answered := s.Score >= t; {
			case answered && s.Correct, !answered && s.Refuse:
				score++
			case answered:
				score -= wrongCost
			}
		}
		if score > bestScore {
			best, bestScore = t, score
		}
	}
	lower := 0.0
	for _, t := range scores {
		if t < best {
			lower = t
			break
		}
	}
	return (best + lower) / 2
}

// threshold is the probability at and above which the picks are
// answered so that they score best: +1 for a right answer, -cost for a
// wrong one (a refusal scores 0); the higher on a tie. It lies halfway
// between the last pick answered and the first refused, so a question
// scored close to a training one falls on the same side. score is what
// the picks score there.
func threshold(picks []pick, cost float64) (t, score float64) {
	sorted := slices.Clone(picks)
	slices.SortStableFunc(sorted, func(a, b pick) int { return cmp.Compare(b.p, a.p) })
	last := -1 // index of the last pick answered
	run := 0.0
	for i := 0; i < len(sorted); {
		// Picks of equal probability are answered together.
		j := i
		for ; j < len(sorted) && sorted[j].p == sorted[i].p; j++ {
			if sorted[j].correct {
				run++
			} else {
				run -= cost
			}
		}
		if run > score {
			score, last = run, j-1
		}
		i = j
	}
	switch {
	case last < 0 && len(sorted) > 0:
		return math.Min(1, math.Nextafter(sorted[0].p, 2)), 0
	case last < 0:
		return 0.5, 0
	case last == len(sorted)-1:
		return sorted[last].p / 2, score
	}
	return (sorted[last].p + sorted[last+1].p) / 2, score
}

// WithoutFeatures zeroes the named features of every labelled candidate,
// for measuring what they add: a feature that is 0 everywhere is
// standardised to 0 and fitted no weight, as if the answerer lacked it.
func WithoutFeatures(books []*Labelled, names []string) error {
	all := answer.MeaningFeatureNames()
	var idx []int
	for _, n := range names {
		i := slices.Index(all, n)
		if i < 0 {
			return fmt.Errorf("--without: no feature %q (see docs/answerer.md)", n)
		}
		idx = append(idx, i)
	}
	for _, b := range books {
		for _, a := range b.Asked {
			for _, x := range a.X {
				for _, i := range idx {
					if i < len(x) {
						x[i] = 0
					}
				}
			}
		}
	}
	return nil
}
