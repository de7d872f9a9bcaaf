package testsummary

import (
	"bytes"
	"strings"
	"testing"
)

// A stream as `go test -json` writes it: a skipped Postgres test in two
// packages, a browser test skipped for another reason, a cached package,
// a failing test, and a package that does not build.
const stream = `{"Action":"start","Package":"example.com/m/postgres"}
{"Action":"run","Package":"example.com/m/postgres","Test":"TestA"}
{"Action":"output","Package":"example.com/m/postgres","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"example.com/m/postgres","Test":"TestA","Output":"    a_test.go:12: DATABASE_URL not set: skipping Postgres tests\n"}
{"Action":"output","Package":"example.com/m/postgres","Test":"TestA","Output":"--- SKIP: TestA (0.00s)\n"}
{"Action":"skip","Package":"example.com/m/postgres","Test":"TestA"}
{"Action":"output","Package":"example.com/m/postgres","Output":"ok  \texample.com/m/postgres\t(cached)\n"}
{"Action":"pass","Package":"example.com/m/postgres"}
{"Action":"run","Package":"example.com/m/http","Test":"TestB"}
{"Action":"output","Package":"example.com/m/http","Test":"TestB","Output":"    b_test.go:40: DATABASE_URL not set: skipping Postgres tests\n"}
{"Action":"skip","Package":"example.com/m/http","Test":"TestB"}
{"Action":"run","Package":"example.com/m/http","Test":"TestC/phone"}
{"Action":"output","Package":"example.com/m/http","Test":"TestC/phone","Output":"    c_test.go:9: no chromium on PATH\n"}
{"Action":"skip","Package":"example.com/m/http","Test":"TestC/phone"}
{"Action":"run","Package":"example.com/m/http","Test":"TestD"}
{"Action":"output","Package":"example.com/m/http","Test":"TestD","Output":"=== RUN   TestD\n"}
{"Action":"output","Package":"example.com/m/http","Test":"TestD","Output":"    d_test.go:3: got 2, want 3\n"}
{"Action":"output","Package":"example.com/m/http","Test":"TestD","Output":"--- FAIL: TestD (0.00s)\n"}
{"Action":"fail","Package":"example.com/m/http","Test":"TestD"}
{"Action":"run","Package":"example.com/m/http","Test":"TestE"}
{"Action":"pass","Package":"example.com/m/http","Test":"TestE"}
{"Action":"output","Package":"example.com/m/http","Output":"FAIL\texample.com/m/http\t0.01s\n"}
{"Action":"fail","Package":"example.com/m/http"}
{"ImportPath":"example.com/m/web","Action":"build-output","Output":"web/x.go:3:1: syntax error\n"}
{"ImportPath":"example.com/m/web","Action":"build-fail"}
`

func TestRead(t *testing.T) {
	var out bytes.Buffer
	res, err := Read(strings.NewReader(stream), &out)
	if err != nil {
		t.Fatal(err)
	}
	wantOut := "ok  \texample.com/m/postgres\t(cached)\n" +
		"=== RUN   TestD\n    d_test.go:3: got 2, want 3\n--- FAIL: TestD (0.00s)\n" +
		"FAIL\texample.com/m/http\t0.01s\n" +
		"web/x.go:3:1: syntax error\n"
	if out.String() != wantOut {
		t.Errorf("passed through:\n%s\nwant:\n%s", out.String(), wantOut)
	}
	if !res.Failed || !res.Cached {
		t.Errorf("Failed=%v Cached=%v, want both", res.Failed, res.Cached)
	}

	var sum bytes.Buffer
	res.Write(&sum)
	want := "skipped 3 tests, for 2 reasons (go test -v ./... shows each):\n" +
		"    2  DATABASE_URL not set: skipping Postgres tests  [http, postgres]\n" +
		"    1  no chromium on PATH  [http]\n" +
		"some results came from the test cache: after installing Chromium or setting DATABASE_URL, run with -count=1\n"
	if sum.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", sum.String(), want)
	}
}

func TestWriteOneSkipped(t *testing.T) {
	res := Result{Skipped: []Group{{Reason: "no browser", Packages: []string{"web"}, Tests: []string{"web.TestA"}}}}
	var sum bytes.Buffer
	res.Write(&sum)
	want := "skipped 1 test, for 1 reason (go test -v ./... shows each):\n    1  no browser  [web]\n"
	if sum.String() != want {
		t.Errorf("summary %q, want %q", sum.String(), want)
	}
}

func TestWriteNothingSkipped(t *testing.T) {
	res, err := Read(strings.NewReader(`{"Action":"pass","Package":"p","Test":"TestA"}`+"\n"), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var sum bytes.Buffer
	res.Write(&sum)
	if sum.String() != "skipped: none\n" || res.Failed {
		t.Errorf("summary %q, failed %v", sum.String(), res.Failed)
	}
}

func TestSkipReason(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  []string
		want string
	}{
		{"file and line removed", []string{"=== RUN   TestA\n", "    a_test.go:7: no database\n", "--- SKIP: TestA (0.00s)\n"}, "no database"},
		{"the last message counts", []string{"    a_test.go:3: starting\n", "    a_test.go:9: skipped: no browser\n"}, "skipped: no browser"},
		{"a message without a position", []string{"no position here\n"}, "no position here"},
		{"nothing logged", []string{"=== RUN   TestA\n", "--- SKIP: TestA (0.00s)\n"}, "(no reason given)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := skipReason(tc.out); got != tc.want {
				t.Errorf("skipReason = %q, want %q", got, tc.want)
			}
		})
	}
}
