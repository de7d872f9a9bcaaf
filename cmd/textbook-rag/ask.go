package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/textbook-rag/rag"
)

// askRefusalLog is the file in the book's folder of the data directory
// that ask appends its refusals to unless --refusal-log says otherwise:
// the log stays whole, and the reader's terminal shows only the answer.
const askRefusalLog = "ask-refusals.log"

func runAsk(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := DefaultConfig()
	f := newFlags("ask", &cfg, stderr)
	f.book()
	f.storedBook()
	f.answering()
	var req rag.ChatRequest
	var asJSON, explain bool
	f.fs.StringVar(&req.SelectedText, "selected-text", "", "answer from this text only")
	f.fs.StringVar(&req.SessionID, "session-id", "", "session UUID for the refusal log")
	f.fs.BoolVar(&asJSON, "json", false, "print exactly the response object")
	f.fs.BoolVar(&explain, "explain", false, "also print how the question was read and scored (to stderr)")
	if err := f.parse(args); err != nil {
		return err
	}
	req.Question = strings.Join(f.fs.Args(), " ")
	if err := req.Normalize(); err != nil {
		return usageError{rag.ErrorMessage(err)}
	}
	if req.SessionID == "" {
		req.SessionID = rag.NewID()
	}
	// Only --data (or --book): answer from that index as it is, writing
	// no index. Otherwise make sure the index matches the book first.
	ensure := cfg.Docs != "" || !flagSet(f, "data") && cfg.Book == ""
	app := NewMain(cfg, stderr)
	app.DefaultRefusalLog = askRefusalLog
	if err := app.Open(ctx, ensure); err != nil {
		return err
	}
	defer app.Close()

	if explain {
		chunks, _ := app.Tutor.Retriever.Retrieve(ctx, req.Question, cfg.Tutor.TopK)
		fmt.Fprint(stderr, "question terms:\n"+app.Lexical.Explain(req.Question)+"top chunks:\n")
		for _, c := range chunks {
			fmt.Fprintf(stderr, "  %.3f %s › %s\n", c.Score, c.ChapterPath, c.SectionHeading)
		}
		fmt.Fprint(stderr, "best passages:\n"+app.Answerer.ExplainEvidence(ctx, req.Question, chunks, 6))
	}
	resp, err := app.Tutor.Ask(ctx, req, nil)
	if err != nil {
		return err
	}
	_ = app.Refusals.Log(req, resp) // a failure is reported on stderr
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(resp)
	}
	fmt.Fprintln(stdout, resp.Answer)
	if resp.WasRefusal {
		fmt.Fprintf(stdout, "\n(refused: %s)\n", *resp.RefusalReason)
		if *resp.RefusalReason == rag.InsufficientContext {
			return printWhere(ctx, stdout, app, req.Question)
		}
		return nil
	}
	if len(resp.Sources) > 0 {
		fmt.Fprintln(stdout, "\nSources:")
		for _, s := range resp.Sources {
			fmt.Fprintf(stdout, "  - %s#%s  %s (score %.2f)\n", s.Path, s.Anchor, s.SectionHeading, s.Score)
		}
	}
	return nil
}

// whereLinks is how many sections an insufficient_context refusal
// points to, as the widget's "Where the book discusses this" does.
const whereLinks = 3

// printWhere prints, under an insufficient_context refusal, the sections
// the widget lists under it: the site search's sections the retriever is
// confident hold the question's subject (none when the book's evidence
// is thin), each as its page path and anchor, its heading and chapter.
func printWhere(ctx context.Context, stdout io.Writer, app *Main, question string) error {
	hits, err := app.Search().Search(ctx, question, whereLinks)
	if err != nil {
		return fmt.Errorf("ask: look up where the book discusses it: %w", err)
	}
	var lines []string
	for _, h := range hits {
		if h.Score < app.Config.Tutor.ConfidentThreshold {
			continue
		}
		link := h.PagePath
		if h.Anchor != "" {
			link += "#" + h.Anchor
		}
		line := "  - " + link + "  " + h.Heading
		if h.ChapterTitle != "" && h.ChapterTitle != h.Heading {
			line += " (" + h.ChapterTitle + ")"
		}
		lines = append(lines, line)
	}
	if len(lines) > 0 {
		fmt.Fprintln(stdout, "\nWhere the book discusses this:\n"+strings.Join(lines, "\n"))
	}
	return nil
}

func flagSet(f *flags, name string) bool {
	set := false
	f.fs.Visit(func(fl *flag.Flag) {
		if fl.Name == name {
			set = true
		}
	})
	return set
}
