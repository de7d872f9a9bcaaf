package main

import (
	"context"
	"io"
	"os"

	"github.com/textbook-rag/rag/eval"
)

func runCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := DefaultConfig()
	f := newFlags("calibrate", &cfg, stderr)
	f.str(&cfg.Docs, "docs", "TEXTBOOK_RAG_DOCS", docsHelp)
	f.answering()
	var questions string
	f.fs.StringVar(&questions, "questions", "", "labelled question file (JSON Lines, see ../shared/eval/FORMAT.md)")
	if err := f.parse(args); err != nil {
		return err
	}
	if questions == "" {
		return usageError{"calibrate needs --questions FILE"}
	}
	qs, err := eval.ReadQuestionsFile(questions)
	if err != nil {
		return err
	}
	cfg.RefusalLog = os.DevNull
	app, closeApp, err := openScratch(ctx, cfg, "calibrate", stderr)
	if err != nil {
		return err
	}
	defer closeApp()
	c, err := eval.Calibrate(ctx, app.Tutor.Retriever, qs, cfg.Tutor.TopK)
	if err != nil {
		return err
	}
	return c.WriteText(stdout)
}
