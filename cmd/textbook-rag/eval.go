package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/textbook-rag/rag/eval"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := DefaultConfig()
	f := newFlags("eval", &cfg, stderr)
	f.str(&cfg.Docs, "docs", "TEXTBOOK_RAG_DOCS", docsHelp)
	f.answering()
	var questions, books string
	var asJSON, verbose, strict, split, links, explain bool
	linkLimit := widgetLinks
	opt := eval.DefaultFitOptions()
	f.fs.StringVar(&questions, "questions", "", "question file (JSON Lines, see ../shared/eval/FORMAT.md)")
	f.fs.StringVar(&books, "books", "", "leave-one-book-out over a books.tsv, each book evaluated with a model fitted on the others, then leave-one-field-out by the fields.tsv beside it")
	f.fs.Float64Var(&opt.L2, "l2", opt.L2, "with --books: L2 regularisation of each fit; 0 = chosen in cross-validation")
	f.fs.Float64Var(&opt.WrongCost, "wrong-cost", opt.WrongCost, "with --books: what a wrong answer costs in right ones when the threshold is chosen")
	f.fs.BoolVar(&opt.Members, "members", opt.Members, "with --books: also fit a member per field and judge a pick by the least probability any gives it (the fit before the curve was the judge)")
	f.fs.Func("without", "with --books: comma-separated features to leave out of the fits (zeroed), for measuring what they add", func(s string) error { opt.Without = strings.Split(s, ","); return nil })
	f.fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.fs.BoolVar(&verbose, "verbose", false, "list every wrong question with the reason")
	f.fs.BoolVar(&split, "split", false, "with --books: also print where each book's worded questions end (gates, no right candidate, right not picked, right pick)")
	f.fs.BoolVar(&links, "search-links", false, "also measure the sections the widget offers after an insufficient_context refusal: how often the gold section of a refused answerable question is among them")
	f.fs.IntVar(&linkLimit, "links", linkLimit, "with --search-links: sections offered a refusal (the widget shows 3)")
	f.fs.BoolVar(&explain, "explain-selections", false, "also ask \""+eval.ExplainQuestion+"\" of the selection of every selected_sufficient question, and count the answers that quote a lead-in or a definition from the book")
	f.fs.BoolVar(&strict, "strict", false, "exit non-zero when an acceptance bar is missed (wrong answers above 2% of the questions among them)")
	if err := f.parse(args); err != nil {
		return err
	}
	if books != "" {
		if !links {
			linkLimit = 0
		}
		passed, err := runLeaveOneOut(ctx, cfg, books, opt, verbose, split, linkLimit, explain, stdout, stderr)
		if err == nil && strict && !passed {
			err = fmt.Errorf("evaluation missed an acceptance bar on a book")
		}
		return err
	}
	if questions == "" {
		return usageError{"eval needs --questions FILE or --books FILE"}
	}
	qs, err := eval.ReadQuestionsFile(questions)
	if err != nil {
		return err
	}
	if cfg.RefusalLog == "" {
		// The refusal log of a hundred questions would bury the table.
		cfg.RefusalLog = os.DevNull
	}
	app, closeApp, err := openScratch(ctx, cfg, "eval", stderr)
	if err != nil {
		return err
	}
	defer closeApp()
	report, err := eval.Run(ctx, app.Tutor, qs, app.Index.Chunk)
	if err != nil {
		return err
	}
	if asJSON {
		err = report.WriteJSON(stdout)
	} else {
		err = report.WriteText(stdout, verbose)
	}
	if err != nil {
		return err
	}
	if links && !asJSON {
		l, err := eval.LinksOf(ctx, questions, app.Search(), linkLimit, app.Config.Tutor.ConfidentThreshold, qs, report, app.Index.Chunk)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		if err := eval.WriteLinksTable(stdout, []eval.Links{l}); err != nil {
			return err
		}
	}
	if explain && !asJSON {
		e, err := eval.ExplainedOf(ctx, questions, app.Tutor, qs)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		if err := eval.WriteExplainedTable(stdout, []eval.Explained{e}); err != nil {
			return err
		}
	}
	if strict && !report.Passed() {
		return fmt.Errorf("evaluation missed an acceptance bar")
	}
	return nil
}

// widgetLinks is how many sections the widget offers after an
// insufficient_context refusal (WHERE_LINKS in web/static/widget.js).
const widgetLinks = 3
