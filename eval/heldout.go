package eval

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/answer"
	"github.com/textbook-rag/rag/tutor"
)

// HeldOutBook is one labelled book as the held-out evaluation asks it:
// its tutor and the answerer inside it (whose model each fold sets), its
// questions and their labelled candidates (see Collect).
type HeldOutBook struct {
	Name, Field string
	Tutor       *tutor.Tutor
	Answerer    *answer.Answerer
	Questions   []Question
	Labelled    *Labelled
	// Chunk finds a chunk of the book by id; Search is the book's section
	// search, whose confident sections (at ConfidentThreshold) are the
	// links a refusal offers.
	Chunk              func(id string) (rag.Chunk, bool)
	Search             rag.Searcher
	ConfidentThreshold float64
}

// HeldOutOptions says what a held-out evaluation prints beside the book
// table and the curve: each book's report (Verbose), the answer/refusal
// split and the definitions self-check (Split), how often the first
// Links sections offered after a refusal hold the answer (Links > 0),
// and how selections are explained (Explain).
type HeldOutOptions struct {
	Fit                     FitOptions
	Verbose, Split, Explain bool
	Links                   int
}

// HeldOut judges the books group by group (key names the group of the
// i-th book): each group's books are asked with a model fitted on the
// other groups' labels, and the per-book table and the judge's curve are
// printed. It reports whether every book passed.
func HeldOut(ctx context.Context, judge string, books []HeldOutBook, key func(i int) string, opt HeldOutOptions, stdout io.Writer) (bool, error) {
	type fold struct {
		m     *answer.Model
		rep   *Report
		split Split
		check SelfCheck
		links Links
		curve CurveBook
		// explained is filled only with opt.Explain.
		explained Explained
	}
	folds := make([]fold, len(books))
	var groups []string
	for i := range books {
		if !slices.Contains(groups, key(i)) {
			groups = append(groups, key(i))
		}
	}
	// The groups are independent: each fits on the other groups' labels
	// and asks its own books' tutors, so they run side by side.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, group := range groups {
		g.Go(func() error {
			var others []*Labelled
			for j, b := range books {
				if key(j) != group {
					others = append(others, b.Labelled)
				}
			}
			m, err := Fit(others, opt.Fit)
			if err != nil {
				return fmt.Errorf("fit without %s: %w", group, err)
			}
			for i, b := range books {
				if key(i) != group {
					continue
				}
				b.Answerer.SetModel(m)
				rep, err := Run(gctx, b.Tutor, b.Questions, b.Chunk)
				if err != nil {
					return fmt.Errorf("book %s: %w", b.Name, err)
				}
				f := fold{m: m, rep: rep, split: SplitOf(b.Labelled, b.Questions, m), curve: CurveBookOf(b.Labelled, b.Questions, m)}
				if opt.Links > 0 {
					if f.links, err = LinksOf(gctx, b.Name, b.Search, opt.Links, b.ConfidentThreshold, b.Questions, rep, b.Chunk); err != nil {
						return fmt.Errorf("book %s: %w", b.Name, err)
					}
				}
				if opt.Split {
					if f.check, err = RunSelfCheck(gctx, b.Tutor, b.Answerer.DefinitionProbes(), b.Chunk); err != nil {
						return fmt.Errorf("book %s: %w", b.Name, err)
					}
				}
				if opt.Explain {
					if f.explained, err = ExplainedOf(gctx, b.Name, b.Tutor, b.Questions); err != nil {
						return fmt.Errorf("book %s: %w", b.Name, err)
					}
				}
				folds[i] = f
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return false, err
	}
	var rows []BookFigures
	var splits []Split
	var linkRows []Links
	var explained []Explained
	var curves []CurveBook
	passed := true
	for i, b := range books {
		f := folds[i]
		if opt.Verbose {
			fmt.Fprintf(stdout, "== %s (fitted on %d books, threshold %.3f, l2 %g)\n", b.Name, len(f.m.Fit.Books), f.m.Threshold, f.m.Fit.L2)
			if err := f.rep.WriteText(stdout, true); err != nil {
				return false, err
			}
			fmt.Fprintln(stdout)
		}
		if opt.Links > 0 {
			linkRows = append(linkRows, f.links)
		}
		if opt.Explain {
			explained = append(explained, f.explained)
		}
		rows = append(rows, FiguresOf(b.Name, b.Field, f.rep))
		splits = append(splits, f.split)
		curves = append(curves, f.curve)
		if opt.Split {
			fmt.Fprintf(stdout, "%s %s\n", b.Name, f.check)
		}
		passed = passed && f.rep.Passed()
	}
	if opt.Split {
		if err := WriteSplitTable(stdout, splits); err != nil {
			return false, err
		}
		fmt.Fprintln(stdout)
	}
	if opt.Links > 0 {
		if err := WriteLinksTable(stdout, linkRows); err != nil {
			return false, err
		}
		fmt.Fprintln(stdout)
	}
	if opt.Explain {
		if err := WriteExplainedTable(stdout, explained); err != nil {
			return false, err
		}
		fmt.Fprintln(stdout)
	}
	if err := WriteBookTable(stdout, rows); err != nil {
		return false, err
	}
	fmt.Fprintln(stdout)
	return passed, WriteCurves(stdout, judge, curves)
}
