package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/textbook-rag/rag/internal/count"
)

// WriteText writes the report for a terminal.
func WriteText(w io.Writer, r *Report, title string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Course report: %s\n", title)
	fmt.Fprintf(&b, "%s to %s (UTC)\n\n", r.From.Format("2006-01-02 15:04"), r.To.Format("2006-01-02 15:04"))
	t := r.Totals
	fmt.Fprintf(&b, "%s: %d answered, %d refused (%s)\n", count.Of(t.Questions, "question"), t.Answers, t.Refusals, percent(t.Refusals, t.Questions))
	fmt.Fprintf(&b, "Answers rated by readers: %d helpful, %d not helpful\n", t.Helpful, t.NotHelpful)
	if r.RefusalLog {
		fmt.Fprintf(&b, "Refusal log: %s in the range\n", count.Of(t.LoggedRefusals, "refusal"))
	}
	if sc := r.SelfCheck; sc != nil && sc.Questions > 0 {
		fmt.Fprintf(&b, "Self-check: %s derived from the book's definitions; %s answered from their own section, %s from another\n",
			count.Of(sc.Questions, "question"), sc.OwnPercent(), sc.OtherPercent())
	}

	b.WriteString("\nPer day\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  date\tquestions\tanswers\trefusals\t")
	for _, d := range r.Days {
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t\n", d.Date, d.Questions, d.Answers, d.Refusals)
	}
	tw.Flush()

	b.WriteString("\nRefusals by reason\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, rc := range r.RefusalsByReason {
		logged := ""
		if r.RefusalLog {
			logged = fmt.Sprintf("(%d in the log)", rc.Logged)
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", rc.Reason, rc.Count, logged)
	}
	tw.Flush()

	b.WriteString("\nWhat refused questions were about\n")
	if len(r.RefusedTopics) == 0 {
		b.WriteString("  (none)\n")
	}
	for i, tp := range r.RefusedTopics {
		s := tp.Summary()
		fmt.Fprintf(&b, "  %d. %s%s", i+1, strings.ToUpper(s[:1]), s[1:])
		if tp.BestScore != nil {
			fmt.Fprintf(&b, " (best match in the book: %.2f)", *tp.BestScore)
		}
		b.WriteString(".\n")
		for _, e := range tp.Examples {
			fmt.Fprintf(&b, "       %q", e.Question)
			if e.Count > 1 {
				fmt.Fprintf(&b, " ×%d", e.Count)
			}
			b.WriteString("\n")
		}
	}
	if r.OtherRefusals > 0 {
		fmt.Fprintf(&b, "  and %d other refused %s\n", r.OtherRefusals, count.Noun(r.OtherRefusals, "question"))
	}

	b.WriteString("\nAnswers marked not helpful\n")
	if len(r.NotHelpful) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, n := range r.NotHelpful {
		fmt.Fprintf(&b, "  %s", n.At.Format(time.DateOnly))
		if n.Section != nil {
			fmt.Fprintf(&b, "  %s › %s", n.Section.Chapter, n.Section.Heading)
		}
		b.WriteString("\n")
		if n.Question != "" {
			fmt.Fprintf(&b, "      Q: %s\n", oneLine(n.Question))
		}
		if n.Comment != "" {
			fmt.Fprintf(&b, "      Comment: %s\n", oneLine(n.Comment))
		}
	}

	b.WriteString("\nSections most often quoted\n")
	if len(r.TopSections) == 0 {
		b.WriteString("  (none)\n")
	}
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, s := range r.TopSections {
		fmt.Fprintf(tw, "  %d\t%s › %s\n", s.Count, s.Chapter, s.Heading)
	}
	tw.Flush()

	b.WriteString("\nChapters never quoted\n")
	if len(r.UnquotedChapters) == 0 {
		b.WriteString("  (none: every chapter was quoted)\n")
	}
	for _, c := range r.UnquotedChapters {
		fmt.Fprintf(&b, "  %s (%s)\n", c.Title, c.Path)
	}
	if !r.QuestionsShown {
		fmt.Fprintf(&b, "\nQuestion texts and comments are hidden; topics shared by fewer than %d questions are counted as other.\n", MinTopicSize)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func percent(n, of int) string {
	if of == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}

// oneLine keeps a question or comment on one terminal line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
