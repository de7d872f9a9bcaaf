package eval

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the outcome of a run: one result per question, in file order.
// Everything else is computed from the results.
type Report struct {
	Results []Result `json:"results"`
}

// Row is one category's tally.
type Row struct {
	Category string `json:"category"`
	Expect   string `json:"expect"`
	Figure
}

// Figure tallies a set of questions. Rate is the share answered or
// refused correctly; Wrong counts answers that are not correct (a refusal
// is never wrong, only unhelpful); Score is the CRAG-style mean of +1 per
// correct response, 0 per refusal that is not correct and -1 per wrong
// answer, so a confident wrong quote costs more than saying nothing.
// Rates and scores are 0 when Total is 0.
type Figure struct {
	Correct   int     `json:"correct"`
	Total     int     `json:"total"`
	Rate      float64 `json:"rate"`
	Wrong     int     `json:"wrong"`
	WrongRate float64 `json:"wrong_rate"`
	Score     float64 `json:"score"`
}

// Overall holds the run's headline figures.
type Overall struct {
	Answerable Figure `json:"answerable"` // every expect=answer question
	// Worded are the answerable questions in the book's own vocabulary:
	// factual, definition, procedural and code.
	Worded   Figure `json:"worded"`
	Refusals Figure `json:"refusals"` // every expect=refuse question
	All      Figure `json:"overall"`
}

// Check is one acceptance bar of the issue. A bar no question falls under
// passes (Total 0) and is shown as not applicable.
type Check struct {
	Name string  `json:"name"`
	Bar  float64 `json:"bar"`
	// Max marks a bar the rate must not exceed (wrong answers); Correct
	// then counts the wrong ones.
	Max     bool    `json:"max,omitempty"`
	Correct int     `json:"correct"`
	Total   int     `json:"total"`
	Rate    float64 `json:"rate"`
	Passed  bool    `json:"passed"`
}

// OutOfScope tallies how the out_of_scope_pattern questions were handled.
// The spec wants those that pass the score gates refused with
// out_of_scope; those the gates stop carry empty_retrieval or
// insufficient_context, which also count as correct. Informational.
type OutOfScope struct {
	Total          int            `json:"total"`
	Answered       int            `json:"answered"`
	WithOutOfScope int            `json:"refused_out_of_scope"`
	OtherReasons   map[string]int `json:"refused_other_reasons"`
}

func (r *Report) figure(keep func(Result) bool) Figure {
	var f Figure
	for _, res := range r.Results {
		if !keep(res) {
			continue
		}
		f.Total++
		switch {
		case res.Correct:
			f.Correct++
		case res.Wrong():
			f.Wrong++
		}
	}
	if f.Total > 0 {
		n := float64(f.Total)
		f.Rate = float64(f.Correct) / n
		f.WrongRate = float64(f.Wrong) / n
		f.Score = float64(f.Correct-f.Wrong) / n
	}
	return f
}

// worded reports the categories asked in the book's own words.
func worded(category string) bool {
	switch category {
	case "factual", "definition", "procedural", "code":
		return true
	}
	return false
}

// Rows tallies the results per category, in the format's order; a
// category without questions has no row.
func (r *Report) Rows() []Row {
	var rows []Row
	for _, c := range Categories {
		f := r.figure(func(x Result) bool { return x.Category == c.Name })
		if f.Total > 0 {
			rows = append(rows, Row{Category: c.Name, Expect: c.Expect, Figure: f})
		}
	}
	return rows
}

// Overall returns the answerable, refusal and overall figures.
func (r *Report) Overall() Overall {
	return Overall{
		Answerable: r.figure(func(x Result) bool { return x.Expect == "answer" }),
		Worded:     r.figure(func(x Result) bool { return worded(x.Category) }),
		Refusals:   r.figure(func(x Result) bool { return x.Expect == "refuse" }),
		All:        r.figure(func(Result) bool { return true }),
	}
}

// Acceptance bars of the issue.
const (
	BarWorded    = 0.85 // factual, definition, procedural and code answered correctly
	BarWrong     = 0.02 // wrong answers, as a share of every question: at most
	BarRefusals  = 0.97 // every must-refuse question
	BarOffDomain = 1.00 // off_domain refused, all of them
	BarSelected  = 0.95 // selected_sufficient and selected_insufficient together
)

// Checks are the acceptance bars, in a fixed order. The wrong
// answers bar is an upper bound; every other bar is a lower one.
func (r *Report) Checks() []Check {
	mk := func(name string, bar float64, keep func(Result) bool) Check {
		f := r.figure(keep)
		return Check{Name: name, Bar: bar, Correct: f.Correct, Total: f.Total, Rate: f.Rate,
			Passed: f.Total == 0 || f.Rate >= bar-1e-9}
	}
	all := r.figure(func(Result) bool { return true })
	wrong := Check{Name: "wrong answers", Bar: BarWrong, Max: true, Correct: all.Wrong, Total: all.Total, Rate: all.WrongRate,
		Passed: all.WrongRate <= BarWrong+1e-9}
	return []Check{
		mk("worded answerable correct", BarWorded, func(x Result) bool { return worded(x.Category) }),
		wrong,
		mk("refusals correct", BarRefusals, func(x Result) bool { return x.Expect == "refuse" }),
		mk("off_domain correct", BarOffDomain, func(x Result) bool { return x.Category == "off_domain" }),
		mk("selected-text correct", BarSelected, func(x Result) bool {
			return x.Category == "selected_sufficient" || x.Category == "selected_insufficient"
		}),
	}
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

// OutOfScope tallies the out_of_scope_pattern questions by outcome.
func (r *Report) OutOfScope() OutOfScope {
	o := OutOfScope{OtherReasons: map[string]int{}}
	for _, res := range r.Results {
		if res.Category != "out_of_scope_pattern" {
			continue
		}
		o.Total++
		switch {
		case res.Got != "refuse":
			o.Answered++
		case res.RefusalReason == "out_of_scope":
			o.WithOutOfScope++
		default:
			o.OtherReasons[res.RefusalReason]++
		}
	}
	return o
}

// Latency returns the median and the 95th percentile (nearest rank) of
// the per-question latency.
func (r *Report) Latency() (median, p95 time.Duration) {
	if len(r.Results) == 0 {
		return 0, 0
	}
	ls := make([]time.Duration, len(r.Results))
	for i, res := range r.Results {
		ls[i] = res.Latency
	}
	slices.Sort(ls)
	rank := func(p float64) time.Duration {
		i := int(math.Ceil(p*float64(len(ls)))) - 1
		return ls[max(0, min(i, len(ls)-1))]
	}
	return rank(0.50), rank(0.95)
}

// AnswerLength returns the median and the 95th percentile (nearest rank)
// of the answers' length in characters; refusals are left out.
func (r *Report) AnswerLength() (median, p95 int) {
	var ls []int
	for _, res := range r.Results {
		if res.Got == "answer" {
			ls = append(ls, res.AnswerChars)
		}
	}
	if len(ls) == 0 {
		return 0, 0
	}
	slices.Sort(ls)
	rank := func(p float64) int {
		i := int(math.Ceil(p*float64(len(ls)))) - 1
		return ls[max(0, min(i, len(ls)-1))]
	}
	return rank(0.50), rank(0.95)
}

// stickyWriter remembers the first write error so a report can be written
// without checking every line.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}

// table is a tabwriter into a buffer; flush writes it out without the
// spaces tabwriter pads each line's last cell with.
type table struct {
	buf bytes.Buffer
	*tabwriter.Writer
}

func newTable() *table {
	t := &table{}
	t.Writer = tabwriter.NewWriter(&t.buf, 0, 0, 2, ' ', 0)
	return t
}

func (t *table) flush(w io.Writer) {
	t.Flush()
	for _, l := range strings.SplitAfter(t.buf.String(), "\n") {
		if l != "" {
			io.WriteString(w, strings.TrimRight(l, " \n")+"\n")
		}
	}
}

func pct(x float64) string { return fmt.Sprintf("%5.1f%%", 100*x) }

// WriteText prints the per-category table, the overall figures, the
// acceptance bars with PASS/FAIL, the out-of-scope tally and the latency;
// verbose adds every wrong question with what was wrong.
func (r *Report) WriteText(w io.Writer, verbose bool) error {
	sw := &stickyWriter{w: w}
	tw := newTable()
	line := func(name, expect string, f Figure) {
		fmt.Fprintf(tw, "%s\t%s\t%4d/%-4d\t%s\t%4d\t%+.2f\n", name, expect, f.Correct, f.Total, pct(f.Rate), f.Wrong, f.Score)
	}
	fmt.Fprintln(tw, "category\texpect\tcorrect\t  rate\twrong\tscore")
	for _, row := range r.Rows() {
		line(row.Category, row.Expect, row.Figure)
	}
	fmt.Fprintln(tw, "\t\t\t\t\t")
	o := r.Overall()
	line("worded", "answer", o.Worded)
	line("answerable", "answer", o.Answerable)
	line("refusals", "refuse", o.Refusals)
	line("overall", "", o.All)
	tw.flush(sw)
	fmt.Fprintln(sw, "(wrong: answered, but incorrectly; score: +1 correct, 0 refused, -1 wrong, averaged)")

	fmt.Fprintln(sw, "\nacceptance:")
	tw = newTable()
	for _, c := range r.Checks() {
		mark, got := "PASS", fmt.Sprintf("%s (%d/%d)", pct(c.Rate), c.Correct, c.Total)
		switch {
		case c.Total == 0:
			mark, got = "n/a", "no questions"
		case !c.Passed:
			mark = "FAIL"
		}
		op := ">="
		if c.Max {
			op = "<="
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s %.0f%%\t%s\n", mark, c.Name, op, 100*c.Bar, got)
	}
	tw.flush(sw)
	if oos := r.OutOfScope(); oos.Total > 0 {
		var other []string
		for k, v := range oos.OtherReasons {
			other = append(other, fmt.Sprintf("%s %d", k, v))
		}
		sort.Strings(other)
		line := fmt.Sprintf("\nout_of_scope_pattern: %d of %d refused with out_of_scope", oos.WithOutOfScope, oos.Total)
		if len(other) > 0 {
			line += ", other reasons: " + strings.Join(other, ", ")
		}
		if oos.Answered > 0 {
			line += fmt.Sprintf(", %d answered", oos.Answered)
		}
		fmt.Fprintln(sw, line)
	}
	med, p95 := r.Latency()
	fmt.Fprintf(sw, "latency per question: median %s, p95 %s\n", med.Round(100*time.Microsecond), p95.Round(100*time.Microsecond))
	if amed, ap95 := r.AnswerLength(); amed > 0 {
		fmt.Fprintf(sw, "answer length: median %d, p95 %d characters\n", amed, ap95)
	}

	if verbose {
		var missed []Result
		nWrong := 0
		for _, res := range r.Results {
			if !res.Correct {
				missed = append(missed, res)
			}
			if res.Wrong() {
				nWrong++
			}
		}
		fmt.Fprintf(sw, "\nnot correct (%d, of which %d wrong answers):\n", len(missed), nWrong)
		tw = newTable()
		for _, res := range missed {
			mark := ""
			if res.Wrong() {
				mark = "WRONG"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", res.ID, res.Category, mark, res.Why)
		}
		tw.flush(sw)
	}
	return sw.err
}

// JSONReport is what WriteJSON prints; its field names are stable.
type JSONReport struct {
	Questions       int        `json:"questions"`
	Categories      []Row      `json:"categories"`
	Overall         Overall    `json:"overall"`
	Checks          []Check    `json:"checks"`
	Passed          bool       `json:"passed"`
	OutOfScope      OutOfScope `json:"out_of_scope_pattern"`
	LatencyMedianMS float64    `json:"latency_median_ms"`
	LatencyP95MS    float64    `json:"latency_p95_ms"`
	Results         []Result   `json:"results"`
}

// JSON gathers the report's figures for WriteJSON.
func (r *Report) JSON() JSONReport {
	med, p95 := r.Latency()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	rows := r.Rows()
	if rows == nil {
		rows = []Row{}
	}
	results := r.Results
	if results == nil {
		results = []Result{}
	}
	return JSONReport{
		Questions: len(r.Results), Categories: rows, Overall: r.Overall(), Checks: r.Checks(),
		Passed: r.Passed(), OutOfScope: r.OutOfScope(), LatencyMedianMS: ms(med), LatencyP95MS: ms(p95),
		Results: results,
	}
}

// WriteJSON prints the report for machines, indented.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.JSON())
}

// BookFigures are one book's headline figures in a leave-one-book-out
// table.
type BookFigures struct {
	Book       string `json:"book"`
	Field      string `json:"field,omitempty"`
	Worded     Figure `json:"worded"`
	All        Figure `json:"overall"`
	Refusals   Figure `json:"refusals"`
	OffDomain  Figure `json:"off_domain"`
	Selected   Figure `json:"selected"`
	Paraphrase Figure `json:"paraphrase"`
}

// FiguresOf sums a report up for the leave-one-book-out table.
func FiguresOf(book, field string, r *Report) BookFigures {
	return BookFigures{
		Book:      book,
		Field:     field,
		Worded:    r.figure(func(x Result) bool { return worded(x.Category) }),
		All:       r.figure(func(Result) bool { return true }),
		Refusals:  r.figure(func(x Result) bool { return x.Expect == "refuse" }),
		OffDomain: r.figure(func(x Result) bool { return x.Category == "off_domain" }),
		Selected: r.figure(func(x Result) bool {
			return x.Category == "selected_sufficient" || x.Category == "selected_insufficient"
		}),
		Paraphrase: r.figure(func(x Result) bool { return x.Category == "paraphrase" }),
	}
}

// WriteBookTable prints one row per book and the mean of the rates: worded
// right, wrong answers (of all questions), refusals, off-domain,
// selected-text, paraphrases right and wrong, and the CRAG score. When the
// books come from several fields and some field has more than one book, a
// last row gives the mean over the fields (each field the mean of its
// books), which weighs a new field as much as one of many siblings.
func WriteBookTable(w io.Writer, rows []BookFigures) error {
	sw := &stickyWriter{w: w}
	t := newTable()
	fmt.Fprintln(t, "book\tworded\twrong\trefusals\toff-domain\tselected\tparaphrase (wrong)\tCRAG")
	rates := func(r BookFigures) [6]float64 {
		return [6]float64{r.Worded.Rate, r.All.WrongRate, r.Refusals.Rate, r.OffDomain.Rate, r.Selected.Rate, r.All.Score}
	}
	var sum [6]float64
	byField := map[string][]BookFigures{}
	var fields []string
	for _, r := range rows {
		fmt.Fprintf(t, "%s\t%d/%d %s\t%d %s\t%d/%d %s\t%d/%d\t%d/%d %s\t%d/%d (%d)\t%+.2f\n", r.Book,
			r.Worded.Correct, r.Worded.Total, pct(r.Worded.Rate), r.All.Wrong, pct(r.All.WrongRate),
			r.Refusals.Correct, r.Refusals.Total, pct(r.Refusals.Rate), r.OffDomain.Correct, r.OffDomain.Total,
			r.Selected.Correct, r.Selected.Total, pct(r.Selected.Rate), r.Paraphrase.Correct, r.Paraphrase.Total, r.Paraphrase.Wrong, r.All.Score)
		for i, v := range rates(r) {
			sum[i] += v
		}
		field := cmp.Or(r.Field, r.Book)
		if _, ok := byField[field]; !ok {
			fields = append(fields, field)
		}
		byField[field] = append(byField[field], r)
	}
	mean := func(name string, sum [6]float64, n int) {
		d := float64(max(n, 1))
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\t\t%+.2f\n", name, pct(sum[0]/d), pct(sum[1]/d), pct(sum[2]/d), pct(sum[3]/d), pct(sum[4]/d), sum[5]/d)
	}
	mean("mean", sum, len(rows))
	if len(fields) > 1 && len(fields) < len(rows) {
		var over [6]float64
		for _, f := range fields {
			var in [6]float64
			for _, r := range byField[f] {
				for i, v := range rates(r) {
					in[i] += v
				}
			}
			for i := range over {
				over[i] += in[i] / float64(len(byField[f]))
			}
		}
		mean(fmt.Sprintf("mean over %d fields", len(fields)), over, len(fields))
	}
	t.flush(sw)
	return sw.err
}

// total is a table's total row: every whole-number field of the rows
// added up, the others (the book's name) left zero.
func total[T any](rows []T) T {
	var sum T
	s := reflect.ValueOf(&sum).Elem()
	for _, r := range rows {
		v := reflect.ValueOf(r)
		for i := range s.NumField() {
			if f := s.Field(i); f.Kind() == reflect.Int {
				f.SetInt(f.Int() + v.Field(i).Int())
			}
		}
	}
	return sum
}
