// Package sharedtest skips a test that needs ../shared (the shared
// textbooks and labelled questions, which a clone does not have) with one
// message, so that the test summary shows one reason for all of them.
package sharedtest

import (
	"os"
	"testing"
)

// SkipMessage is the reason every test that needs ../shared skips with.
const SkipMessage = "../shared not present (the shared textbooks and question sets): skipping"

// Require skips the test, with SkipMessage after a log line naming what
// is missing, unless every path exists.
func Require(t testing.TB, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Logf("%s: %v", p, err)
			t.Skip(SkipMessage)
		}
	}
}
