package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/textbook-rag/rag/sample"
)

// bigBook writes a book whose one large page holds size bytes: the
// sample book's pages over and over, each copy a section of its own.
func bigBook(tb testing.TB, size int) string {
	tb.Helper()
	var pages []string
	fs.WalkDir(sample.Docs(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".md") {
			b, _ := fs.ReadFile(sample.Docs(), p)
			pages = append(pages, string(b))
		}
		return err
	})
	var b strings.Builder
	b.WriteString("# A very long chapter\n\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "\n## Part %d\n\n%s\n", i, strings.ReplaceAll(pages[i%len(pages)], "\n# ", "\n### "))
	}
	docs := tb.TempDir()
	if err := os.MkdirAll(filepath.Join(docs, "long"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "intro.md"), []byte("# Intro\n\nA book with one very long chapter.\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "long", "chapter.md"), []byte(b.String()[:size]), 0o644); err != nil {
		tb.Fatal(err)
	}
	return docs
}

// startCommand starts this test binary as `textbook-rag args...`.
func startCommand(tb testing.TB, args ...string) (*exec.Cmd, *bufio.Scanner) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TEXTBOOK_RAG_TEST_RUN=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return cmd, bufio.NewScanner(out)
}

// BenchmarkSignalDuringStartup measures how long `ingest` and `serve`
// take to exit after SIGTERM while they read a book whose one page is
// 5.7 MB or 8 MiB (the largest page read): the signal is sent at eight
// moments spread over the start-up, whose length is measured first. It
// reports the start-up's length and the slowest and median exit.
//
//	go test ./cmd/textbook-rag -run '^$' -bench SignalDuringStartup -benchtime 1x
func BenchmarkSignalDuringStartup(b *testing.B) {
	for _, size := range []int{5_700_000, 8 << 20} {
		docs := bigBook(b, size)
		for _, command := range []string{"ingest", "serve"} {
			name := fmt.Sprintf("%s/%.1fMB", command, float64(size)/1e6)
			if size == 8<<20 {
				name = command + "/8MiB"
			}
			b.Run(name, func(b *testing.B) {
				args := []string{command, "--docs", docs}
				if command == "serve" {
					args = append(args, "--addr", "127.0.0.1:0")
				}
				// started runs the command to its end (ingest) or until
				// it serves, and returns how long that took.
				started := func(cmd *exec.Cmd, out *bufio.Scanner, start time.Time) time.Duration {
					if command == "ingest" {
						for out.Scan() {
						}
						cmd.Wait()
						return time.Since(start)
					}
					for out.Scan() {
						if strings.Contains(out.Text(), "is serving") {
							took := time.Since(start)
							cmd.Process.Signal(syscall.SIGKILL)
							cmd.Wait()
							return took
						}
					}
					cmd.Wait()
					b.Fatal("serve did not start")
					return 0
				}
				for range b.N {
					cmd, out := startCommand(b, append(args, "--data", b.TempDir())...)
					whole := started(cmd, out, time.Now())
					var exits []time.Duration
					for k := 1; k <= 8; k++ {
						cmd, out := startCommand(b, append(args, "--data", b.TempDir())...)
						go func() {
							for out.Scan() {
							}
						}()
						time.Sleep(whole * time.Duration(k) / 9)
						sent := time.Now()
						cmd.Process.Signal(syscall.SIGTERM)
						cmd.Wait()
						exits = append(exits, time.Since(sent))
					}
					slices.Sort(exits)
					b.ReportMetric(whole.Seconds(), "startup-s")
					b.ReportMetric(float64(exits[len(exits)-1].Milliseconds()), "max-exit-ms")
					b.ReportMetric(float64(exits[len(exits)/2].Milliseconds()), "median-exit-ms")
				}
			})
		}
	}
}
