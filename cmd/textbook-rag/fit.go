package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/textbook-rag/rag/eval"
	"golang.org/x/sync/errgroup"
)

// openedBook is one labelled book, ingested into its own temporary data
// directory, with its questions.
type openedBook struct {
	eval.Book
	app   *Main
	qs    []eval.Question
	Close func()
}

// openScratch opens the book of cfg in a data directory of its own, name
// in its name, which done removes: the evaluation commands ingest a book
// afresh and leave nothing behind.
func openScratch(ctx context.Context, cfg Config, name string, stderr io.Writer) (app *Main, done func(), err error) {
	dir, err := os.MkdirTemp("", "textbook-rag-"+name+"-*")
	if err != nil {
		return nil, nil, err
	}
	cfg.Data, cfg.Scratch = dir, true
	app = NewMain(cfg, stderr)
	if err := app.Open(ctx, true); err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return app, func() { app.Close(); os.RemoveAll(dir) }, nil
}

// openBooks ingests every book of a books.tsv file with cfg's settings.
func openBooks(ctx context.Context, cfg Config, path string, stderr io.Writer) ([]*openedBook, error) {
	books, err := eval.ReadBooks(path)
	if err != nil {
		return nil, err
	}
	// The model once for every book, and said: the curves differ with
	// and without it.
	cfg.SentenceModel = resolveModel(ctx, cfg.SentenceModel, stderr)
	if cfg.SentenceModel == "" {
		fmt.Fprintln(stderr, "sentence model: none, words alone")
	} else {
		fmt.Fprintf(stderr, "sentence model: %s (texts cut at %d tokens)\n", cfg.SentenceModel, meaningTokens)
	}
	var out []*openedBook
	for _, b := range books {
		ob, err := openBook(ctx, cfg, b, stderr)
		if err != nil {
			for _, o := range out {
				o.Close()
			}
			return nil, fmt.Errorf("book %s: %w", b.Name, err)
		}
		out = append(out, ob)
	}
	return out, nil
}

func openBook(ctx context.Context, cfg Config, b eval.Book, stderr io.Writer) (*openedBook, error) {
	qs, err := eval.ReadQuestionsFile(b.Questions)
	if err != nil {
		return nil, err
	}
	cfg.Docs, cfg.RefusalLog = b.Docs, os.DevNull
	if cfg.Vectors == "" {
		cfg.Vectors = userVectors()
	}
	cfg.MeaningOnDemand = true
	app, closeApp, err := openScratch(ctx, cfg, "fit", io.Discard)
	if err != nil {
		return nil, err
	}
	return &openedBook{Book: b, app: app, qs: qs, Close: closeApp}, nil
}

// collect labels the candidates of every book's questions, the books
// side by side.
func collect(ctx context.Context, books []*openedBook, stderr io.Writer) ([]*eval.Labelled, error) {
	start := time.Now()
	defer func() {
		embedded, kept := 0, ""
		for _, b := range books {
			if b.app.Meaning != nil {
				embedded += b.app.Meaning.Embedded()
				kept = b.app.Meaning.Path()
			}
		}
		if embedded > 0 {
			fmt.Fprintf(stderr, "the sentence model embedded %d texts the questions read in %s (kept in %s)\n", embedded, time.Since(start).Round(time.Second), kept)
		}
	}()
	out := make([]*eval.Labelled, len(books))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, b := range books {
		g.Go(func() error {
			l, err := eval.Collect(gctx, b.Name, b.app.Tutor, b.app.Answerer, b.qs, b.app.Index.Chunk)
			if err != nil {
				return fmt.Errorf("book %s: %w", b.Name, err)
			}
			l.Field = b.Field
			out[i] = l
			return nil
		})
	}
	return out, g.Wait()
}

func runFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := DefaultConfig()
	f := newFlags("fit", &cfg, stderr)
	f.model()
	opt := eval.DefaultFitOptions()
	var booksPath, out string
	f.fs.StringVar(&booksPath, "books", "", "labelled books (books.tsv, see ../shared/eval/FORMAT.md)")
	f.fs.StringVar(&out, "out", "", "where to write the fitted model; empty = answer/model.json, or answer/model-meaning.json with a sentence model (--model)")
	f.fs.Float64Var(&opt.L2, "l2", opt.L2, "L2 regularisation on standardised features; 0 = chosen in cross-validation")
	f.fs.Float64Var(&opt.WrongCost, "wrong-cost", opt.WrongCost, "what a wrong answer costs in right ones when the threshold is chosen")
	f.fs.BoolVar(&opt.Members, "members", opt.Members, "also fit a member per field and judge a pick by the least probability any gives it (the fit before the curve was the judge)")
	f.fs.Func("without", "comma-separated features to leave out of the fit (zeroed), for measuring what they add", func(s string) error { opt.Without = strings.Split(s, ","); return nil })
	var dump string
	f.fs.StringVar(&dump, "dump", "", "also write every labelled candidate (features, label, section) to this JSON file, for analysis")
	if err := f.parse(args); err != nil {
		return err
	}
	if booksPath == "" {
		return usageError{"fit needs --books FILE"}
	}
	// The model is found (or fetched) before the books open, so that the
	// file written is the one its features fit.
	cfg.SentenceModel = resolveModel(ctx, cfg.SentenceModel, stderr)
	if out == "" {
		out = "answer/model.json"
		if cfg.SentenceModel != "" {
			out = "answer/model-meaning.json"
		}
	}
	books, err := openBooks(ctx, cfg, booksPath, stderr)
	if err != nil {
		return err
	}
	defer func() {
		for _, b := range books {
			b.Close()
		}
	}()
	labelled, err := collect(ctx, books, stderr)
	if err != nil {
		return err
	}
	if err := eval.WithoutFeatures(labelled, opt.Without); err != nil {
		return err
	}
	if dump != "" {
		data, err := json.Marshal(labelled)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dump, data, 0o644); err != nil {
			return fmt.Errorf("write dump: %w", err)
		}
	}
	m, err := eval.Fit(labelled, opt)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write model: %w", err)
	}
	fmt.Fprintf(stdout, "fitted on %d books, %d questions, %d candidate passages (%d answer); l2 %g; %d per-field members; threshold %.3f; wrote %s\n",
		len(m.Fit.Books), m.Fit.Questions, m.Fit.Pairs, m.Fit.Positives, m.Fit.L2, len(m.Members), m.Threshold, out)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "feature\tweight")
	for i, name := range m.Features {
		fmt.Fprintf(tw, "%s\t%+.3f\n", name, m.Weights[i])
	}
	fmt.Fprintf(tw, "(none)\t%+.3f\n", m.None)
	return tw.Flush()
}

// runLeaveOneOut evaluates each book of a books.tsv file with a model
// fitted on the others (leave-one-book-out), then each field's books with
// a model fitted on the books of the other fields (leave-one-field-out,
// the case of a course team's book), and prints both tables; with links >
// 0, also how often the sections offered after an insufficient_context
// refusal (links of them) hold the answer. It passes when every book
// meets the bars in both.
func runLeaveOneOut(ctx context.Context, cfg Config, booksPath string, opt eval.FitOptions, verbose, split bool, links int, explain bool, stdout, stderr io.Writer) (bool, error) {
	books, err := openBooks(ctx, cfg, booksPath, stderr)
	if err != nil {
		return false, err
	}
	if len(books) < 2 {
		books[0].Close()
		return false, usageError{"leave-one-book-out needs at least two books in " + booksPath}
	}
	defer func() {
		for _, b := range books {
			b.Close()
		}
	}()
	labelled, err := collect(ctx, books, stderr)
	if err != nil {
		return false, err
	}
	if err := eval.WithoutFeatures(labelled, opt.Without); err != nil {
		return false, err
	}
	// Both judges' folds fit many of the same book sets: each is fitted
	// once.
	opt.Cache = &eval.FitCache{}
	hopt := eval.HeldOutOptions{Fit: opt, Verbose: verbose, Split: split, Explain: explain, Links: links}
	held := make([]eval.HeldOutBook, len(books))
	for i, b := range books {
		held[i] = eval.HeldOutBook{Name: b.Name, Field: b.Field, Tutor: b.app.Tutor, Answerer: b.app.Answerer, Questions: b.qs, Labelled: labelled[i],
			Chunk: b.app.Index.Chunk, Search: b.app.Search(), ConfidentThreshold: b.app.Config.Tutor.ConfidentThreshold}
	}
	passed := true
	judges := []struct {
		name, title string
		key         func(i int) string
	}{
		{"leave-one-book-out", "each book judged by a model fitted on the other books", strconv.Itoa},
		{"leave-one-field-out", "each field's books judged by a model fitted on the books of the other fields", func(i int) string { return books[i].Field }},
	}
	for i, j := range judges {
		if i > 0 && len(fieldsOf(books)) < 2 {
			fmt.Fprintf(stdout, "\n(no leave-one-field-out: every book is of one field; name each book's field in fields.tsv beside %s)\n", booksPath)
			break
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "== %s: %s\n", j.name, j.title)
		ok, err := eval.HeldOut(ctx, j.name, held, j.key, hopt, stdout)
		if err != nil {
			return false, err
		}
		passed = passed && ok
	}
	return passed, nil
}

// fieldsOf lists the books' fields, each once.
func fieldsOf(books []*openedBook) []string {
	var out []string
	for _, b := range books {
		if !slices.Contains(out, b.Field) {
			out = append(out, b.Field)
		}
	}
	return out
}
