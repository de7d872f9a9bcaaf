// Command testsummary prints `go test -json` output the way plain
// `go test` does, then one line per reason tests were skipped:
//
//	go test -json ./... | go run ./.ci/testsummary
//
// It exits 1 when a test or a build failed.
package main

import (
	"fmt"
	"os"

	"github.com/textbook-rag/rag/internal/testsummary"
)

func main() {
	res, err := testsummary.Read(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	res.Write(os.Stdout)
	if res.Failed {
		os.Exit(1)
	}
}
