// Command textbook-rag turns a Markdown textbook into a tutor that answers
// only from the book and refuses everything else. This package only wires
// the project's packages together; see the README for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/internal/logline"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `textbook-rag — a tutor that answers only from a Markdown textbook.

Usage:
  textbook-rag ingest    [--docs DIR] [--data DIR]
  textbook-rag ask       [--docs DIR] [--data DIR [--book NAME]] [--selected-text TEXT] [--session-id UUID] [--json] "QUESTION"
  textbook-rag eval      [--docs DIR] --questions FILE [--json] [--verbose]
  textbook-rag eval      --books BOOKS.tsv [--verbose]   (leave-one-book-out and leave-one-field-out)
  textbook-rag fit       --books BOOKS.tsv [--out answer/model.json]
  textbook-rag serve     [--docs DIR] [--data DIR] [--addr :8001]
  textbook-rag calibrate [--docs DIR] --questions FILE
  textbook-rag report    [--data DIR] [--book NAME | --docs DIR] [--since 7d] [--json] [--report-questions=false]
  textbook-rag version

Without --docs the commands use the sample textbook built into the binary;
report, and ask given only --data, read the book the data directory holds.
Each book keeps its index and chat history in a folder of its own under
DATA/books/, so books on one data directory never replace each other's.
Run "textbook-rag COMMAND -h" for a command's flags; every flag can also be
set by the environment variable shown in its help.
`

// run is main without the process: tests call it directly. Everything
// the process writes to stderr goes through one logline.Writer, so that a
// line cut short by a full disk never runs into the next.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	stderr = logline.New(stderr)
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "ingest":
		err = runIngest(ctx, args[1:], stdout, stderr)
	case "ask":
		err = runAsk(ctx, args[1:], stdout, stderr)
	case "eval":
		err = runEval(ctx, args[1:], stdout, stderr)
	case "fit":
		err = runFit(ctx, args[1:], stdout, stderr)
	case "serve":
		err = runServe(ctx, args[1:], stdout, stderr)
	case "calibrate":
		err = runCalibrate(ctx, args[1:], stdout, stderr)
	case "report":
		err = runReport(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "textbook-rag", rag.Version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "textbook-rag:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "textbook-rag:", err)
		return 1
	}
}

// usageError marks a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }
