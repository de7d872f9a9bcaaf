// Package testsummary reads the event stream of `go test -json` and says
// what was skipped and why. A plain `go test ./...` prints only "ok" for
// a package whose tests skipped, so a missing database or browser goes
// unnoticed; this prints one line per reason instead.
package testsummary

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// Group is the tests skipped for one reason.
type Group struct {
	Reason   string
	Packages []string // short names, sorted
	Tests    []string // "pkg.TestName", in the order they skipped
}

// Result is what a run of `go test -json` reported.
type Result struct {
	Skipped []Group // the largest group first
	Cached  bool    // some package's result came from the test cache
	Failed  bool    // a test, a package or the build failed
}

// testKey names a test within its package.
type testKey struct{ pkg, test string }

// A test's log line starts with its file and line ("x_test.go:12: ").
var logPrefix = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: `)

// Read passes the package lines of a `go test -json` stream ("ok", "FAIL",
// "(cached)") and the whole output of failed tests to w, as plain
// `go test` would, and returns what was skipped.
func Read(r io.Reader, w io.Writer) (Result, error) {
	var res Result
	logs := map[testKey][]string{}
	groups := map[string]*Group{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// The build's own errors are not JSON.
			fmt.Fprintln(w, string(line))
			continue
		}
		k := testKey{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(w, e.Output)
		case "build-fail":
			res.Failed = true
		case "output":
			if e.Test == "" && (strings.HasPrefix(e.Output, "ok ") || strings.HasPrefix(e.Output, "FAIL") || strings.HasPrefix(e.Output, "?")) {
				fmt.Fprint(w, e.Output)
				res.Cached = res.Cached || strings.Contains(e.Output, "(cached)")
				continue
			}
			logs[k] = append(logs[k], e.Output)
		case "fail":
			// A failed test's log, or what a failed package printed
			// outside its tests (a panic in TestMain, a build error).
			res.Failed = true
			fmt.Fprint(w, strings.Join(logs[k], ""))
			delete(logs, k)
		case "skip":
			if e.Test == "" {
				continue
			}
			reason := skipReason(logs[k])
			g := groups[reason]
			if g == nil {
				g = &Group{Reason: reason}
				groups[reason] = g
			}
			short := e.Package[strings.LastIndex(e.Package, "/")+1:]
			if !slices.Contains(g.Packages, short) {
				g.Packages = append(g.Packages, short)
				slices.Sort(g.Packages)
			}
			g.Tests = append(g.Tests, short+"."+e.Test)
			delete(logs, k)
		case "pass":
			delete(logs, k)
		}
	}
	if err := sc.Err(); err != nil {
		return res, fmt.Errorf("read go test -json: %w", err)
	}
	for _, g := range groups {
		res.Skipped = append(res.Skipped, *g)
	}
	slices.SortFunc(res.Skipped, func(a, b Group) int {
		if len(a.Tests) != len(b.Tests) {
			return len(b.Tests) - len(a.Tests)
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	return res, nil
}

// skipReason is the last line a skipped test logged, without its file and
// line: the message of its t.Skip.
func skipReason(out []string) string {
	for i := len(out) - 1; i >= 0; i-- {
		s := strings.TrimSpace(out[i])
		if s == "" || strings.HasPrefix(s, "=== ") || strings.HasPrefix(s, "--- ") {
			continue
		}
		return strings.TrimSpace(logPrefix.ReplaceAllString(out[i], ""))
	}
	return "(no reason given)"
}

// Write prints the summary: one line per reason with the number of tests
// and their packages, and how to rerun when results came from the cache.
func (res Result) Write(w io.Writer) {
	if len(res.Skipped) == 0 {
		fmt.Fprintln(w, "skipped: none")
		return
	}
	n := 0
	for _, g := range res.Skipped {
		n += len(g.Tests)
	}
	fmt.Fprintf(w, "skipped %s, for %s (go test -v ./... shows each):\n", count(n, "test"), count(len(res.Skipped), "reason"))
	for _, g := range res.Skipped {
		fmt.Fprintf(w, "  %3d  %s  [%s]\n", len(g.Tests), g.Reason, strings.Join(g.Packages, ", "))
	}
	if res.Cached {
		fmt.Fprintln(w, "some results came from the test cache: after installing Chromium or setting DATABASE_URL, run with -count=1")
	}
}

// count says "1 test" or "3 tests".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
