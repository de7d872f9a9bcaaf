package tutor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/textbook-rag/rag"
)

// disk is a log destination with room for a number of bytes: a write past
// it writes what fits and fails with ENOSPC, as write(2) on a full disk
// does. With file set it is a real file (which can be truncated back);
// otherwise a pipe-like stream (stderr), which cannot.
type disk struct {
	mu   sync.Mutex
	room int
	f    *os.File
	buf  bytes.Buffer
}

func (d *disk) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := min(len(p), d.room)
	if d.f != nil {
		n, _ = d.f.Write(p[:n])
	} else {
		d.buf.Write(p[:n])
	}
	d.room -= n
	if n < len(p) {
		return n, &os.PathError{Op: "write", Path: "refusals.log", Err: syscall.ENOSPC}
	}
	return n, nil
}

func (d *disk) setRoom(n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.room = n
}

func (d *disk) contents(t *testing.T) string {
	t.Helper()
	if d.f == nil {
		return d.buf.String()
	}
	b, err := os.ReadFile(d.f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fileDisk exposes the file's Stat, Seek and Truncate, as an *os.File
// does.
type fileDisk struct{ *disk }

func (d fileDisk) Stat() (os.FileInfo, error)                { return d.f.Stat() }
func (d fileDisk) Seek(off int64, whence int) (int64, error) { return d.f.Seek(off, whence) }
func (d fileDisk) Truncate(size int64) error                 { return d.f.Truncate(size) }

// logRefusal logs the i-th refusal of a test and reports whether the log
// said it failed.
func logRefusal(l *RefusalLog, i int) bool {
	req := rag.ChatRequest{Question: fmt.Sprintf("question %d about banana bread", i), SessionID: "550e8400-e29b-41d4-a716-446655440000"}
	resp := rag.Refusal(rag.InsufficientContext, InsufficientContextMessage, req.SessionID)
	score := 0.61
	resp.Retrieval = &rag.Retrieval{Chunks: 3, MaxScore: &score}
	return l.Log(req, resp) != nil
}

// A disk that fills up partway through a run of refusals, then frees
// space: every refusal is either one whole line of valid JSON or counted
// as a failure, no two events share a line, and logging recovers without
// a restart. A file gets a cut line removed; a stream (stderr) gets the
// cut line ended, so that the next event starts on a line of its own.
func TestRefusalLogFullDisk(t *testing.T) {
	for _, tc := range []struct {
		name     string
		file     bool
		maxWaste int // cut lines allowed to remain
	}{
		{"file", true, 0},
		{"stream", false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &disk{room: 5000}
			var w interface{ Write([]byte) (int, error) } = d
			if tc.file {
				f, err := os.OpenFile(filepath.Join(t.TempDir(), "refusals.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { f.Close() })
				d.f, w = f, fileDisk{d}
			}
			var stderr bytes.Buffer
			l := NewRefusalLog(w)
			now := time.Date(2026, 11, 25, 13, 0, 0, 0, time.UTC)
			l.Now = func() time.Time { return now }
			l.Logger = slog.New(slog.NewJSONHandler(&stderr, nil))

			const before, after = 100, 20
			failed := 0
			for i := range before {
				if logRefusal(l, i) {
					failed++
				}
			}
			if failed == 0 || failed == before {
				t.Fatalf("%d of %d failed: the disk should fill up partway", failed, before)
			}
			// Space returns: each later refusal is logged whole.
			d.setRoom(1 << 20)
			for i := before; i < before+after; i++ {
				if logRefusal(l, i) {
					t.Fatalf("refusal %d failed after space returned", i)
				}
			}

			seen := map[string]bool{}
			waste := 0
			for _, line := range strings.Split(strings.TrimSuffix(d.contents(t), "\n"), "\n") {
				var ev RefusalEvent
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					if strings.Count(line, `"event"`) > 1 {
						t.Errorf("two events run together: %q", line)
					}
					waste++
					continue
				}
				if seen[ev.Question] {
					t.Errorf("logged twice: %q", ev.Question)
				}
				seen[ev.Question] = true
			}
			if waste > tc.maxWaste {
				t.Errorf("%d cut lines remain, want at most %d", waste, tc.maxWaste)
			}
			if got, want := len(seen), before+after-failed; got != want {
				t.Errorf("%d whole lines, want %d (%d refusals, %d counted as failed)", got, want, before+after, failed)
			}
			for i := before; i < before+after; i++ {
				if !seen[fmt.Sprintf("question %d about banana bread", i)] {
					t.Errorf("refusal %d after recovery is missing", i)
				}
			}
			if got := l.Failures(); got != int64(failed) {
				t.Errorf("Failures() = %d, want %d", got, failed)
			}
			// One report for the whole burst: rate-limited.
			if n := strings.Count(stderr.String(), `"level":"ERROR"`); n != 1 {
				t.Errorf("%d reports on stderr, want 1:\n%s", n, stderr.String())
			}

			// Ten seconds on, the next failure is reported with the count
			// of those not reported.
			now = now.Add(11 * time.Second)
			d.setRoom(0)
			if !logRefusal(l, 999) {
				t.Fatal("a write to a full disk did not fail")
			}
			last := stderr.String()[strings.LastIndex(strings.TrimSuffix(stderr.String(), "\n"), "\n")+1:]
			var rep map[string]any
			if err := json.Unmarshal([]byte(last), &rep); err != nil {
				t.Fatalf("report %q: %v", last, err)
			}
			if rep["suppressed"] != float64(failed-1) || !strings.Contains(fmt.Sprint(rep["error"]), "no space left") {
				t.Errorf("second report %v, want suppressed=%d and the ENOSPC error", rep, failed-1)
			}
		})
	}
}
