// Package eval runs a labelled question file (../shared/eval/FORMAT.md)
// through a tutor and scores it the way the format prescribes.
package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/textbook-rag/rag"
)

// Question is one line of a question file.
type Question struct {
	ID           string   `json:"id"`
	Question     string   `json:"question"`
	SelectedText string   `json:"selected_text,omitempty"`
	Expect       string   `json:"expect"`
	Reasons      []string `json:"reasons"`
	GoldChapter  string   `json:"gold_chapter,omitempty"`
	GoldHeading  string   `json:"gold_heading,omitempty"`
	AnswerTerms  []string `json:"answer_terms,omitempty"`
	Category     string   `json:"category"`
	Note         string   `json:"note,omitempty"`
}

// Categories in the format's order, with what each expects.
var Categories = []struct{ Name, Expect string }{
	{"factual", "answer"}, {"definition", "answer"}, {"procedural", "answer"}, {"code", "answer"},
	{"paraphrase", "answer"}, {"off_domain", "refuse"}, {"out_of_scope_pattern", "refuse"},
	{"in_domain_uncovered", "refuse"}, {"selected_sufficient", "answer"}, {"selected_insufficient", "refuse"},
}

func expectOf(category string) (string, bool) {
	for _, c := range Categories {
		if c.Name == category {
			return c.Expect, true
		}
	}
	return "", false
}

// Validate checks a question against the format.
func (q Question) Validate() error {
	switch {
	case strings.TrimSpace(q.ID) == "":
		return errors.New("id is empty")
	case utf8.RuneCountInString(q.Question) < 1 || utf8.RuneCountInString(q.Question) > rag.MaxQuestionChars:
		return fmt.Errorf("%s: question must have 1-%d characters", q.ID, rag.MaxQuestionChars)
	case q.Expect != "answer" && q.Expect != "refuse":
		return fmt.Errorf("%s: expect must be answer or refuse, not %q", q.ID, q.Expect)
	}
	want, ok := expectOf(q.Category)
	if !ok {
		return fmt.Errorf("%s: unknown category %q", q.ID, q.Category)
	}
	if want != q.Expect {
		return fmt.Errorf("%s: category %s expects %s", q.ID, q.Category, want)
	}
	for _, r := range q.Reasons {
		if !slices.Contains(rag.RefusalReasons, rag.RefusalReason(r)) {
			return fmt.Errorf("%s: unknown refusal reason %q", q.ID, r)
		}
	}
	if q.Expect == "refuse" && len(q.Reasons) == 0 {
		return fmt.Errorf("%s: a refusal needs its reasons", q.ID)
	}
	if q.Expect == "answer" {
		if len(q.AnswerTerms) == 0 {
			return fmt.Errorf("%s: an answer needs answer_terms", q.ID)
		}
		if q.SelectedText == "" && (q.GoldChapter == "" || q.GoldHeading == "") {
			return fmt.Errorf("%s: an answer without selected_text needs gold_chapter and gold_heading", q.ID)
		}
	}
	return nil
}

// ReadQuestions reads a JSON Lines question file; errors name the line.
func ReadQuestions(r io.Reader) ([]Question, error) {
	var qs []Question
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var q Question
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if err := q.Validate(); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if seen[q.ID] {
			return nil, fmt.Errorf("line %d: duplicate id %s", n, q.ID)
		}
		seen[q.ID] = true
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(qs) == 0 {
		return nil, errors.New("no questions")
	}
	return qs, nil
}

// ReadQuestionsFile reads a question file from disk.
func ReadQuestionsFile(path string) ([]Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	qs, err := ReadQuestions(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return qs, nil
}

// Result is the outcome of one question.
type Result struct {
	ID            string        `json:"id"`
	Category      string        `json:"category"`
	Expect        string        `json:"expect"`
	Got           string        `json:"got"`
	RefusalReason string        `json:"refusal_reason,omitempty"`
	Correct       bool          `json:"correct"`
	Why           string        `json:"why,omitempty"`
	MaxScore      float64       `json:"max_source_score"`
	Latency       time.Duration `json:"latency_ns"`
}

// Run asks every question and scores the responses. chunk looks a source's
// chunk up by id, for its chapter path and headings.
func Run(ctx context.Context, tutor rag.Tutor, qs []Question, chunk func(id string) (rag.Chunk, bool)) (*Report, error) {
	rep := &Report{}
	for _, q := range qs {
		req := rag.ChatRequest{
			Question:     q.Question,
			SelectedText: q.SelectedText,
			SessionID:    uuid.NewSHA1(uuid.NameSpaceURL, []byte("textbook-rag-eval:"+q.ID)).String(),
		}
		if err := req.Normalize(); err != nil {
			return nil, fmt.Errorf("%s: %w", q.ID, err)
		}
		start := time.Now()
		resp, err := tutor.Ask(ctx, req, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.ID, err)
		}
		r := Score(q, resp, chunk)
		r.Latency = time.Since(start)
		rep.Results = append(rep.Results, r)
	}
	return rep, nil
}

// Score judges one response as FORMAT.md says.
func Score(q Question, resp rag.ChatResponse, chunk func(id string) (rag.Chunk, bool)) Result {
	r := Result{ID: q.ID, Category: q.Category, Expect: q.Expect, Got: "answer"}
	for _, s := range resp.Sources {
		r.MaxScore = max(r.MaxScore, s.Score)
	}
	if resp.WasRefusal {
		r.Got = "refuse"
		if resp.RefusalReason != nil {
			r.RefusalReason = string(*resp.RefusalReason)
		}
	}
	switch {
	case r.Got != q.Expect && r.Got == "refuse":
		r.Why = "refused: " + r.RefusalReason
	case r.Got != q.Expect:
		r.Why = "answered a question that must be refused"
	case r.Got == "refuse" && !slices.Contains(q.Reasons, r.RefusalReason):
		r.Why = "wrong reason " + r.RefusalReason + " (want " + strings.Join(q.Reasons, "|") + ")"
	case r.Got == "answer":
		if t := missingTerm(resp.Answer, q.AnswerTerms); t != "" {
			r.Why = fmt.Sprintf("missing term %q", t)
		} else if q.SelectedText == "" && !hasGoldSource(q, resp.Sources, chunk) {
			r.Why = "no source at " + q.GoldChapter + " › " + q.GoldHeading + " (got: " + describe(resp.Sources, chunk) + ")"
		}
	}
	r.Correct = r.Why == ""
	return r
}

func missingTerm(answer string, terms []string) string {
	low := strings.ToLower(answer)
	for _, t := range terms {
		hit := false
		for _, alt := range strings.Split(t, "|") {
			if alt = strings.ToLower(strings.TrimSpace(alt)); alt != "" && strings.Contains(low, alt) {
				hit = true
				break
			}
		}
		if !hit {
			return t
		}
	}
	return ""
}

// normHeading compares headings without a trailing {#anchor}, case or
// surrounding space.
func normHeading(h string) string {
	h = strings.TrimSpace(h)
	if i := strings.LastIndex(h, "{#"); i >= 0 && strings.HasSuffix(h, "}") {
		h = strings.TrimSpace(h[:i])
	}
	return strings.ToLower(h)
}

func hasGoldSource(q Question, sources []rag.Source, chunk func(string) (rag.Chunk, bool)) bool {
	gold := normHeading(q.GoldHeading)
	for _, s := range sources {
		c, ok := chunk(s.ChunkID)
		if !ok || c.ChapterPath != q.GoldChapter {
			continue
		}
		if normHeading(s.SectionHeading) == gold {
			return true
		}
		for _, h := range c.Headings {
			if normHeading(h.Text) == gold {
				return true
			}
		}
	}
	return false
}

func describe(sources []rag.Source, chunk func(string) (rag.Chunk, bool)) string {
	var parts []string
	for _, s := range sources {
		path := s.ChapterID
		if c, ok := chunk(s.ChunkID); ok {
			path = c.ChapterPath
		}
		parts = append(parts, path+" › "+s.SectionHeading)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// Row is one category's tally.
type Row struct {
	Category string  `json:"category"`
	Expect   string  `json:"expect"`
	Total    int     `json:"total"`
	Correct  int     `json:"correct"`
	Rate     float64 `json:"rate"`
}

// Check is one acceptance bar of the issue.
type Check struct {
	Name   string  `json:"name"`
	Rate   float64 `json:"rate"`
	Bar    float64 `json:"bar"`
	Total  int     `json:"total"`
	Passed bool    `json:"passed"`
}

// Report is the outcome of a run.
type Report struct {
	Results []Result `json:"results"`
}

// Rows tallies the results per category, in the format's order.
func (r *Report) Rows() []Row {
	var rows []Row
	for _, c := range Categories {
		row := Row{Category: c.Name, Expect: c.Expect}
		for _, res := range r.Results {
			if res.Category == c.Name {
				row.Total++
				if res.Correct {
					row.Correct++
				}
			}
		}
		if row.Total > 0 {
			row.Rate = float64(row.Correct) / float64(row.Total)
			rows = append(rows, row)
		}
	}
	return rows
}

func (r *Report) tally(keep func(Result) bool) (correct, total int) {
	for _, res := range r.Results {
		if keep(res) {
			total++
			if res.Correct {
				correct++
			}
		}
	}
	return
}

func rate(c, t int) float64 {
	if t == 0 {
		return 1
	}
	return float64(c) / float64(t)
}

// Checks are the acceptance bars; a bar with no question passes.
func (r *Report) Checks() []Check {
	mk := func(name string, bar float64, keep func(Result) bool) Check {
		c, t := r.tally(keep)
		return Check{Name: name, Rate: rate(c, t), Bar: bar, Total: t, Passed: rate(c, t) >= bar}
	}
	checks := []Check{
		mk("answerable correct", 0.90, func(x Result) bool { return x.Expect == "answer" }),
		mk("off_domain refused", 1.00, func(x Result) bool { return x.Category == "off_domain" }),
	}
	for _, cat := range []string{"out_of_scope_pattern", "in_domain_uncovered", "selected_insufficient"} {
		cat := cat
		checks = append(checks, mk(cat+" refused", 0.95, func(x Result) bool { return x.Category == cat }))
	}
	checks = append(checks, mk("selected-text correct", 0.95, func(x Result) bool { return strings.HasPrefix(x.Category, "selected_") }))
	return checks
}

// Passed reports whether every acceptance bar is met.
func (r *Report) Passed() bool {
	for _, c := range r.Checks() {
		if !c.Passed {
			return false
		}
	}
	return true
}

// OutOfScopeReasons counts the reasons out_of_scope_pattern questions were
// refused with: those that passed the score gates must carry out_of_scope.
func (r *Report) OutOfScopeReasons() map[string]int {
	m := map[string]int{}
	for _, res := range r.Results {
		if res.Category == "out_of_scope_pattern" && res.Got == "refuse" {
			m[res.RefusalReason]++
		}
	}
	return m
}

// Latency returns the median and 95th percentile per question.
func (r *Report) Latency() (p50, p95 time.Duration) {
	if len(r.Results) == 0 {
		return 0, 0
	}
	ls := make([]time.Duration, len(r.Results))
	for i, res := range r.Results {
		ls[i] = res.Latency
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i] < ls[j] })
	return ls[len(ls)/2], ls[len(ls)*95/100]
}
