package main

import (
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// snapshotDir maps each file under dir to its size and modification time.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = info.ModTime().Format(time.RFC3339Nano) + " " + strconv.FormatInt(info.Size(), 10)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// `ask --data` writes no index: the one file it may touch is the book's
// ask-refusals.log, where the refusal rules want its refusal logged; with
// --refusal-log - it leaves the data directory as it was.
func TestAskDataWritesOnlyItsRefusalLog(t *testing.T) {
	data := t.TempDir()
	if code, _, errOut := runCmd(t, "ingest", "--data", data); code != 0 {
		t.Fatal(errOut)
	}
	const refused = "What is the best recipe for banana bread?"
	before := snapshotDir(t, data)
	code, out, errOut := runCmd(t, "ask", "--data", data, "--refusal-log", "-", refused)
	if code != 0 || !strings.Contains(out, "(refused: ") || !strings.Contains(errOut, refused) {
		t.Fatalf("ask: exit %d\n%s\n%s", code, out, errOut)
	}
	if after := snapshotDir(t, data); !equalMaps(before, after) {
		t.Errorf("ask --data --refusal-log - changed the data directory:\nbefore %v\nafter  %v", before, after)
	}
	if code, _, errOut := runCmd(t, "ask", "--data", data, refused); code != 0 {
		t.Fatal(errOut)
	}
	after := snapshotDir(t, data)
	for p, v := range after {
		if before[p] != v && filepath.Base(p) != askRefusalLog {
			t.Errorf("ask --data changed %s", p)
		}
	}
	logged := 0
	for p := range after {
		if filepath.Base(p) == askRefusalLog {
			logged++
		}
	}
	if logged != 1 || len(after) != len(before)+1 {
		t.Errorf("ask --data wrote %d new files, want only %s", len(after)-len(before), askRefusalLog)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
