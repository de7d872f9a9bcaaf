package report

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"time"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/internal/count"
)

//go:embed page.html
var pageFS embed.FS

var pageTemplate = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"pct":    percent,
	"plural": count.Noun,
	"score": func(f *float64) string {
		if f == nil {
			return ""
		}
		return fmt.Sprintf("%.2f", *f)
	},
	"date":  func(t time.Time) string { return t.UTC().Format("2 Jan 2006") },
	"join":  func(ws []string) string { return strings.Join(ws, " ") },
	"label": reasonLabel,
}).ParseFS(pageFS, "page.html"))

// reasonLabel is a reason as the widget names it to readers.
func reasonLabel(r rag.RefusalReason) string {
	switch r {
	case rag.EmptyRetrieval:
		return "Not in the textbook"
	case rag.InsufficientContext:
		return "Not enough in the textbook"
	case rag.OutOfScope:
		return "Outside this course"
	case rag.SelectedTextInsufficient:
		return "Not in the reader's selection"
	}
	return string(r)
}

// Source is what the report page reads: the history, the served book and
// the refusal log file.
type Source struct {
	History   rag.ExchangeReader
	Title     string
	Chapters  []Chapter
	BookTexts []string
	Sections  []Section
	// RefusalLog is the refusal log's file; "" when it goes to stderr.
	RefusalLog    string
	ShowQuestions bool
	// DocsURL is where the book's pages are ("/docs" on the reader's page).
	DocsURL string
	Now     func() time.Time
	// SelfCheck is the book's self-check, when known.
	SelfCheck *SelfCheck
}

// Build makes the report of the last since.
func (s *Source) Build(ctx context.Context, since time.Duration) (*Report, error) {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	to := now().UTC().Truncate(time.Second).Add(time.Second)
	opts := Options{From: to.Add(-since), To: to, Chapters: s.Chapters, BookTexts: s.BookTexts, Sections: s.Sections, ShowQuestions: s.ShowQuestions, SelfCheck: s.SelfCheck}
	if s.RefusalLog != "" {
		f, err := os.Open(s.RefusalLog)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// No refusal yet: the log is created with the first one.
		case err != nil:
			return nil, fmt.Errorf("report: open the refusal log: %w", err)
		default:
			defer f.Close()
			opts.RefusalLog = f
		}
	}
	return Build(ctx, s.History, opts)
}

// Bar is one day's bar of the chart, in the SVG's coordinates.
type Bar struct {
	Day                     Day
	X, Width                float64
	AnswerY, AnswerHeight   float64
	RefusalY, RefusalHeight float64
}

// Chart is the daily counts as SVG geometry, computed here so that the
// template only places rectangles.
type Chart struct {
	Width, Plot float64
	Max         int
	Bars        []Bar
	First, Last string
}

const (
	chartWidth = 640
	chartPlot  = 150
)

func chart(days []Day) Chart {
	c := Chart{Width: chartWidth, Plot: chartPlot}
	for _, d := range days {
		c.Max = max(c.Max, d.Questions)
	}
	if len(days) == 0 {
		return c
	}
	c.First, c.Last = shortDate(days[0].Date), shortDate(days[len(days)-1].Date)
	top := float64(max(c.Max, 1))
	step := chartWidth / float64(len(days))
	gap := math.Min(step*0.2, 6)
	for i, d := range days {
		ah := chartPlot * float64(d.Answers) / top
		rh := chartPlot * float64(d.Refusals) / top
		c.Bars = append(c.Bars, Bar{
			Day: d, X: round(float64(i)*step + gap/2), Width: round(step - gap),
			AnswerY: round(chartPlot - ah), AnswerHeight: round(ah),
			RefusalY: round(chartPlot - ah - rh), RefusalHeight: round(rh),
		})
	}
	return c
}

func round(f float64) float64 { return math.Round(f*10) / 10 }

func shortDate(d string) string {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return d
	}
	return t.Format("2 Jan")
}

// WriteHTML renders the report page.
func (s *Source) WriteHTML(w io.Writer, r *Report, since string) error {
	var buf bytes.Buffer
	err := pageTemplate.Execute(&buf, map[string]any{
		"Title":   s.Title,
		"R":       r,
		"Chart":   chart(r.Days),
		"Since":   since,
		"DocsURL": strings.TrimSuffix(s.DocsURL, "/"),
		"Min":     MinTopicSize,
		"Ranges":  []string{"1d", "7d", "30d", "90d"},
	})
	if err != nil {
		return fmt.Errorf("report page: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// MaxSince is the longest range a report covers: its per-day table has a
// row a day.
const MaxSince = 3660 * 24 * time.Hour

// ParseSince reads a report's range: whole days ("7d") or a Go duration
// ("36h"), from an hour to MaxSince; an EINVALID *rag.Error otherwise.
func ParseSince(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	bad := func() error {
		e := rag.Errorf(rag.EINVALID, "since must be whole days such as 7d or a duration such as 36h, from 1h to %dd", MaxSince/(24*time.Hour))
		e.Details = map[string]any{"field": "since"}
		return e
	}
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(days, "%d", &n); err != nil || fmt.Sprint(n) != days || n <= 0 || n > int(MaxSince/(24*time.Hour)) {
			return 0, bad()
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, bad()
		}
	}
	if d < time.Hour || d > MaxSince {
		return 0, bad()
	}
	return d, nil
}
