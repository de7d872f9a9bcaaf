package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/textbook-rag/rag/datadir"
	"github.com/textbook-rag/rag/internal/sharedtest"
)

// Ingest hears SIGINT/SIGTERM through its context: a cancelled context
// stops it with the cause instead of reading the book to the end.
func TestIngestStopsWhenCancelled(t *testing.T) {
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("# A\n\nA page.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"ingest", "--docs", docs, "--data", filepath.Join(t.TempDir(), "data")}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("exit %d, stderr %q; want 1 and the cancellation named", code, stderr.String())
	}
}

// A file the loader leaves out is named on stderr with the reason.
func TestIngestWarnsOfSkippedFiles(t *testing.T) {
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("# A\n\nA page.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(docs, "host.md")); err != nil {
		t.Skip("symbolic links not supported here:", err)
	}
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"ingest", "--docs", docs, "--data", filepath.Join(t.TempDir(), "data")}, &stdout, &stderr)
	if code != 0 || !strings.Contains(stderr.String(), "warning: host.md: skipped: a symbolic link") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// The out-of-scope refusal lists the real modules of a book that keeps
// them one folder deeper (the second shared book).
func TestScopeListsNestedModules(t *testing.T) {
	docs := filepath.Join(filepath.Dir(sharedCorpus), "humanoid-robotics-textbook")
	sharedtest.Require(t, docs)
	cfg := DefaultConfig()
	cfg.Docs, cfg.Data = docs, filepath.Join(t.TempDir(), "data")
	a := NewMain(cfg, io.Discard)
	if err := a.Open(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	got := strings.Join(a.Tutor.Modules, " | ")
	want := "Module 1: The Robotic Nervous System (ROS 2) | Module 2: Sensors and Perception for Humanoid Robots | Module 3: The AI-Robot Brain (NVIDIA Isaac™) | Module 4: Vision-Language-Action (VLA)"
	if got != want {
		t.Errorf("scope %q, want %q", got, want)
	}
}

// A signal that arrives while the last page is chunked stops ingest
// before it writes the index: the command fails and the data dir keeps
// no index.
func TestIngestCancelledOnLastFileWritesNoIndex(t *testing.T) {
	docs := t.TempDir()
	for _, name := range []string{"a.md", "b.md"} {
		if err := os.WriteFile(filepath.Join(docs, name), []byte("# "+name+"\n\nA page.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := DefaultConfig()
	cfg.Docs, cfg.Data = docs, filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	in, err := ingest(ctx, cfg, io.Discard, cancelOnLastPage{cancel}, true)
	if !errors.Is(err, context.Canceled) || in.Wrote {
		t.Errorf("ingest = wrote %v, %v; want context.Canceled and no write", in.Wrote, err)
	}
	if _, err := os.Stat(filepath.Join(datadir.Locate(cfg.Data, bookSource(cfg)), datadir.FileName)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("index after a cancelled ingest: %v, want none", err)
	}
}

// A signal that arrives while start-up is in a step that cannot stop
// part-way (parsing a huge page, counting its tokens: here a hook that
// blocks) is honoured at once, by `ingest` and by `serve`: the command
// returns exit status 1 naming the cancellation, without waiting for the
// step, and nothing is served or written. The bound is generous; the
// figures for real pages are in docs/notes (BenchmarkSignalDuringStartup).
func TestSignalHonouredMidStep(t *testing.T) {
	for _, tc := range []struct {
		cmd       string
		selfCheck bool // the step is the self-check, after the book is read
	}{{"ingest", false}, {"serve", false}, {"ingest", true}, {"serve", true}} {
		cmd, selfCheck := tc.cmd, tc.selfCheck
		name := cmd
		if selfCheck {
			name += "/self-check"
		}
		t.Run(name, func(t *testing.T) {
			docs, data := t.TempDir(), filepath.Join(t.TempDir(), "data")
			if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("# A\n\nA page about robot joints.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			// The step lasts 10 s, or until the test is over.
			release := make(chan struct{})
			var once sync.Once
			end := func() { once.Do(func() { close(release) }) }
			step := func() {
				cancel() // the signal, mid-step
				select {
				case <-release:
				case <-time.After(10 * time.Second):
				}
			}
			if selfCheck {
				beforeSelfCheck = step
			} else {
				afterBookRead = step
			}
			t.Cleanup(func() {
				end()
				running.Wait()
				afterBookRead, beforeSelfCheck = nil, nil
			})
			args := []string{cmd, "--docs", docs, "--data", data}
			if cmd == "serve" {
				args = append(args, "--addr", "127.0.0.1:0")
			}
			var stdout, stderr bytes.Buffer
			start := time.Now()
			code := run(ctx, args, &stdout, &stderr)
			took := time.Since(start)
			if code != 1 || !strings.Contains(stderr.String(), "context canceled") || stdout.Len() > 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and the cancellation named", code, stdout.String(), stderr.String())
			}
			if took > 5*time.Second {
				t.Errorf("%s returned %s after the signal: it waited for the step", cmd, took)
			}
		})
	}
}

// cancelOnLastPage cancels the ingest it follows once the last page is read.
type cancelOnLastPage struct{ cancel func() }

func (c cancelOnLastPage) Pages(done, total int, _ string) {
	if done == total {
		c.cancel()
	}
}
func (cancelOnLastPage) Chunks(int)  {}
func (cancelOnLastPage) Step(string) {}

// A start with a current index reads the index and does not parse the
// book again (R4-selfcheck-bound): what it serves is the stored index,
// as a mark written into the file shows; a change of a page parses again.
func TestCurrentIndexIsReadNotRebuilt(t *testing.T) {
	docs := t.TempDir()
	page := filepath.Join(docs, "a.md")
	if err := os.WriteFile(page, []byte("# A\n\nGears turn wheels. A gear has teeth.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Docs, cfg.Data = docs, filepath.Join(t.TempDir(), "data")
	in, err := ingest(t.Context(), cfg, io.Discard, nil, true)
	if err != nil || !in.Wrote {
		t.Fatalf("first ingest: wrote %v, %v", in.Wrote, err)
	}
	// The mark is written as datadir writes an index, with its sum: an
	// index edited by hand is rebuilt (TestTamperedIndexIsRebuilt).
	ix := in.Index
	marked := slices.Clone(ix.Chunks)
	marked[0].Text = strings.Replace(marked[0].Text, "Gears turn wheels.", "Marked in the index.", 1)
	if marked[0].Text == ix.Chunks[0].Text {
		t.Fatal("the index does not hold the page's text")
	}
	aside := t.TempDir()
	if _, err := datadir.Save(t.Context(), aside, ix.Book, marked, datadir.SaveOptions{Options: ix.Options, Source: ix.Source, Course: ix.Course, Input: ix.Input}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(aside, datadir.FileName), filepath.Join(in.Dir, datadir.FileName)); err != nil {
		t.Fatal(err)
	}
	in, err = ingest(t.Context(), cfg, io.Discard, nil, false)
	if err != nil || in.Wrote {
		t.Fatalf("second ingest: wrote %v, %v", in.Wrote, err)
	}
	if !strings.Contains(in.Index.Chunks[0].Text, "Marked in the index.") {
		t.Errorf("a start with a current index parsed the book again: %q", in.Index.Chunks[0].Text)
	}
	if err := os.WriteFile(page, []byte("# A\n\nGears turn wheels. A gear has many teeth.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err = ingest(t.Context(), cfg, io.Discard, nil, false)
	if err != nil || !in.Wrote || !strings.Contains(in.Index.Chunks[0].Text, "many teeth") {
		t.Errorf("after a change of the page: wrote %v, %v, text %q", in.Wrote, err, in.Index.Chunks[0].Text)
	}
}

// An index edited by hand (a JSON-valid edit: a chunk's text changed, its
// chunks emptied, another book's index given our source fields) is never
// served: a start rebuilds it from the book, with a warning naming it.
func TestTamperedIndexIsRebuilt(t *testing.T) {
	docs, other := t.TempDir(), t.TempDir()
	for dir, text := range map[string]string{docs: "Gears turn wheels. A gear has teeth.", other: "Pulleys lift loads. A pulley has a rope."} {
		if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\n"+text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(t.TempDir(), "data")
	cfg := DefaultConfig()
	cfg.Docs, cfg.Data = other, data
	theirs, err := ingest(t.Context(), cfg, io.Discard, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	otherRaw, err := os.ReadFile(filepath.Join(theirs.Dir, datadir.FileName))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Docs = docs
	ours, err := ingest(t.Context(), cfg, io.Discard, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ours.Dir, datadir.FileName)
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(raw []byte, change func(m map[string]json.RawMessage)) []byte {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		change(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tampered := map[string][]byte{
		"text changed": bytes.Replace(good, []byte("Gears turn wheels."), []byte("Gears are edible."), 1),
		"no chunks":    edit(good, func(m map[string]json.RawMessage) { m["chunks"] = json.RawMessage("[]") }),
		"another book's index": edit(otherRaw, func(m map[string]json.RawMessage) {
			edit(good, func(o map[string]json.RawMessage) {
				for _, k := range []string{"source", "course", "input", "options", "book"} {
					m[k] = o[k]
				}
			})
		}),
	}
	for name, raw := range tampered {
		t.Run(name, func(t *testing.T) {
			if bytes.Equal(raw, good) {
				t.Fatal("the edit changed nothing")
			}
			if err := os.WriteFile(file, raw, 0o600); err != nil {
				t.Fatal(err)
			}
			var warn bytes.Buffer
			in, err := ingest(t.Context(), cfg, &warn, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if !in.Wrote || len(in.Index.Chunks) != 1 || !strings.Contains(in.Index.Chunks[0].Text, "Gears turn wheels.") {
				t.Errorf("served the tampered index: wrote %v, chunks %+v", in.Wrote, in.Index.Chunks)
			}
			if want := "warning: " + file + ": not served: the index does not match the sum stored with it"; !strings.Contains(warn.String(), want) {
				t.Errorf("warnings %q, want %q", warn.String(), want)
			}
			if ix, err := datadir.Load(ours.Dir); err != nil || !strings.Contains(ix.Chunks[0].Text, "Gears turn wheels.") {
				t.Errorf("the rebuilt index: %v", err)
			}
		})
	}
}

// A layout warning (here a Hugo page bundle's resource left out) is said
// at each start, also by one that serves the index a previous run built
// without reading the book's structure again.
func TestLayoutWarningsRepeatedAtEachStart(t *testing.T) {
	docs := t.TempDir()
	for name, text := range map[string]string{
		"hugo.toml":                   "title = \"Ponds\"\n",
		"content/_index.md":           "---\ntitle: Ponds\n---\n\nA pond needs a pump.\n",
		"content/pump/index.md":       "---\ntitle: Pump\n---\n\nRun the pump all day.\n",
		"content/pump/wiring-note.md": "Wire it to a fused socket.\n",
	} {
		p := filepath.Join(docs, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := DefaultConfig()
	cfg.Docs, cfg.Data = docs, filepath.Join(t.TempDir(), "data")
	const want = "textbook-rag: warning: hugo.toml: skipped: 1 files in page bundles"
	for i, wantWrote := range []bool{true, false} {
		var stderr bytes.Buffer
		in, err := ingest(t.Context(), cfg, &stderr, nil, false)
		if err != nil || in.Wrote != wantWrote {
			t.Fatalf("start %d: wrote %v, %v", i+1, in.Wrote, err)
		}
		if n := strings.Count(stderr.String(), want); n != 1 {
			t.Errorf("start %d: the warning is said %d times, want once; stderr %q", i+1, n, stderr.String())
		}
	}
}
