package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/textbook-rag/rag/answer"
	"github.com/textbook-rag/rag/eval"
	"github.com/textbook-rag/rag/internal/count"
	"github.com/textbook-rag/rag/lexical"
	"github.com/textbook-rag/rag/vectors"
)

func runIngest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := DefaultConfig()
	f := newFlags("ingest", &cfg, stderr)
	f.book()
	f.model()
	if err := f.parse(args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return usageError{"ingest takes no arguments"}
	}
	_, name, err := bookFS(cfg)
	if err != nil {
		return err
	}
	// On a terminal a status line follows the ingest; piped, nothing.
	var progress *progressLine
	if isTerminal(stderr) {
		progress = newProgressLine(stderr, progressTick)
	}
	finish := func() {
		if progress != nil {
			progress.Finish()
			progress = nil
		}
	}
	defer finish()
	start := time.Now()
	// A signal is honoured at once, even mid-page (see untilDone).
	in, err := untilDone(ctx, func() (ingested, error) {
		if progress == nil {
			return ingest(ctx, cfg, stderr, nil, true)
		}
		return ingest(ctx, cfg, stderr, progress, true)
	}, nil)
	if err != nil {
		return err
	}
	if progress != nil {
		progress.Step("self-check")
	}
	// What a start derives from the index (the word associations, the
	// answerer's book side) is kept now, so that the first start after
	// the ingest derives nothing; the self-check reads the whole book
	// again. A signal meanwhile is honoured at once too.
	var ans *answer.Answerer
	sc, err := untilDone(ctx, func() (eval.SelfCheck, error) {
		chunks := in.Index.Chunks
		key := derivedKey(chunks)
		book := learnBook(chunks, in.Dir, key, true, stderr)
		ans = learnAnswerer(book, in.Dir, answererKey(key, chunks), true, stderr)
		sc, _, err := currentSelfCheck(ctx, cfg.Tutor, in.Index, in.Dir, func() (*lexical.Index, *answer.Answerer) { return lexical.New(book), ans }, nil)
		return sc, err
	}, nil)
	finish()
	if err != nil {
		return err
	}
	// The sentence model's vectors of the book, so that a start embeds
	// nothing and a question costs one embedding.
	if _, err := untilDone(ctx, func() (*vectors.Cache, error) {
		return embedBook(ctx, cfg, in.Dir, derivedKey(in.Index.Chunks), ans, stderr)
	}, nil); err != nil {
		return err
	}
	book, n, wrote := in.Index.Book, len(in.Index.Chunks), in.Wrote
	state := "index unchanged"
	if wrote {
		state = "index written"
	}
	fmt.Fprintf(stdout, "%s: %q, %s, %s; %s in %s (%s)\n",
		name, in.Index.Course, count.Of(len(book.Modules), "module"), count.Of(n, "chunk"), state, in.Dir, time.Since(start).Round(time.Millisecond))
	fmt.Fprintln(stdout, sc)
	return nil
}

func isTerminal(w io.Writer) bool {
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
