package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

func runIngest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := DefaultConfig()
	f := newFlags("ingest", &cfg, stderr)
	f.book()
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
	var progress func(done, total int, path string)
	if isTerminal(stderr) {
		progress = func(done, total int, path string) {
			fmt.Fprintf(stderr, "\r\033[K[%d/%d] %s", done, total, path)
			if done == total {
				fmt.Fprintln(stderr)
			}
		}
	}
	start := time.Now()
	// A signal is honoured at once, even mid-page (see untilDone).
	in, err := untilDone(ctx, func() (ingested, error) { return ingest(ctx, cfg, stderr, progress, true) }, nil)
	if err != nil {
		return err
	}
	book, n, wrote := in.Index.Book, len(in.Index.Chunks), in.Wrote
	state := "index unchanged"
	if wrote {
		state = "index written"
	}
	fmt.Fprintf(stdout, "%s: %q, %d modules, %d chunks; %s in %s (%s)\n",
		name, in.Index.Course, len(book.Modules), n, state, in.Dir, time.Since(start).Round(time.Millisecond))
	sc, _, err := currentSelfCheck(ctx, cfg.Tutor, in.Index, in.Dir, nil, nil, nil)
	if err != nil {
		return err
	}
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
