package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// WriteText prints the per-category table, the overall figures and the
// acceptance bars; verbose adds every wrong question with the reason.
func (r *Report) WriteText(w io.Writer, verbose bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "category\texpect\tcorrect\ttotal\trate\t")
	for _, row := range r.Rows() {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%5.1f%%\t\n", row.Category, row.Expect, row.Correct, row.Total, 100*row.Rate)
	}
	ac, at := r.tally(func(x Result) bool { return x.Expect == "answer" })
	rc, rt := r.tally(func(x Result) bool { return x.Expect == "refuse" })
	oc, ot := r.tally(func(Result) bool { return true })
	fmt.Fprintf(tw, "answerable\tanswer\t%d\t%d\t%5.1f%%\t\n", ac, at, 100*rate(ac, at))
	fmt.Fprintf(tw, "refusals\trefuse\t%d\t%d\t%5.1f%%\t\n", rc, rt, 100*rate(rc, rt))
	fmt.Fprintf(tw, "overall\t\t%d\t%d\t%5.1f%%\t\n", oc, ot, 100*rate(oc, ot))
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nacceptance:")
	for _, c := range r.Checks() {
		mark := "PASS"
		if !c.Passed {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  %s  %-31s %5.1f%% (bar %.0f%%, %d questions)\n", mark, c.Name, 100*c.Rate, 100*c.Bar, c.Total)
	}
	if reasons := r.OutOfScopeReasons(); len(reasons) > 0 {
		var parts []string
		for k, v := range reasons {
			parts = append(parts, fmt.Sprintf("%s %d", k, v))
		}
		sort.Strings(parts)
		fmt.Fprintf(w, "  out_of_scope_pattern refusals by reason: %s\n", strings.Join(parts, ", "))
	}
	p50, p95 := r.Latency()
	fmt.Fprintf(w, "  latency per question: median %s, p95 %s\n", p50, p95)

	if verbose {
		fmt.Fprintln(w, "\nwrong:")
		for _, res := range r.Results {
			if !res.Correct {
				fmt.Fprintf(w, "  %s [%s] %s\n", res.ID, res.Category, res.Why)
			}
		}
	}
	return nil
}

// WriteJSON prints the report for machines.
func (r *Report) WriteJSON(w io.Writer) error {
	ac, at := r.tally(func(x Result) bool { return x.Expect == "answer" })
	rc, rt := r.tally(func(x Result) bool { return x.Expect == "refuse" })
	oc, ot := r.tally(func(Result) bool { return true })
	p50, p95 := r.Latency()
	out := struct {
		Categories        []Row          `json:"categories"`
		Answerable        float64        `json:"answerable_rate"`
		Refusals          float64        `json:"refusal_rate"`
		Overall           float64        `json:"overall_rate"`
		Checks            []Check        `json:"checks"`
		Passed            bool           `json:"passed"`
		OutOfScopeReasons map[string]int `json:"out_of_scope_pattern_reasons"`
		LatencyP50ns      int64          `json:"latency_p50_ns"`
		LatencyP95ns      int64          `json:"latency_p95_ns"`
		Results           []Result       `json:"results"`
	}{r.Rows(), rate(ac, at), rate(rc, rt), rate(oc, ot), r.Checks(), r.Passed(), r.OutOfScopeReasons(), p50.Nanoseconds(), p95.Nanoseconds(), r.Results}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
