package tutor

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/textbook-rag/rag"
)

// RefusalLog writes the spec's refusal log: one JSON object per line with
// exactly the spec's fields. Each line is whole or absent: it goes out in
// one Write, and a write cut short (a full disk) is truncated away when the
// log is a file, or ended with a newline before the next line otherwise,
// so that a cut line never swallows the next event.
type RefusalLog struct {
	mu  sync.Mutex
	w   io.Writer
	Now func() time.Time
	// Logger reports failed writes, at most once per ReportEvery, with
	// the count of failures not reported; nil means slog.Default().
	Logger      *slog.Logger
	ReportEvery time.Duration

	cut        bool // the last line was cut and could not be removed
	failures   int64
	suppressed int
	reported   time.Time
}

// DefaultReportEvery is how often a failing refusal log is reported.
const DefaultReportEvery = 10 * time.Second

// NewRefusalLog logs to w: stderr, or a file opened with O_APPEND (a cut
// line is truncated away, and only appending writes land after it).
func NewRefusalLog(w io.Writer) *RefusalLog {
	return &RefusalLog{w: w, Now: time.Now, ReportEvery: DefaultReportEvery}
}

// RefusalEvent is one line of the refusal log.
type RefusalEvent struct {
	Event           string            `json:"event"`
	Timestamp       string            `json:"timestamp"`
	SessionID       string            `json:"session_id"`
	Question        string            `json:"question"`
	RefusalReason   rag.RefusalReason `json:"refusal_reason"`
	ChunksRetrieved int               `json:"chunks_retrieved"`
	MaxScore        *float64          `json:"max_score"`
}

// truncater is a log file whose cut line can be removed.
type truncater interface {
	Stat() (os.FileInfo, error)
	Truncate(size int64) error
}

// Log writes the refusal resp, once the reader has received it; an
// answer, or a nil log, writes nothing. A failed write is counted,
// reported (rate-limited) and returned, for the caller's metrics: the
// refusal itself still stands.
func (l *RefusalLog) Log(req rag.ChatRequest, resp rag.ChatResponse) error {
	if l == nil || l.w == nil || !resp.WasRefusal || resp.RefusalReason == nil {
		return nil
	}
	ev := RefusalEvent{
		Event:         "refusal",
		Timestamp:     l.Now().UTC().Format(time.RFC3339),
		SessionID:     req.SessionID,
		Question:      req.Question,
		RefusalReason: *resp.RefusalReason,
	}
	if r := resp.Retrieval; r != nil {
		ev.ChunksRetrieved, ev.MaxScore = r.Chunks, r.MaxScore
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("refusal log: encode: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	prefix := 0
	line := make([]byte, 0, len(b)+2)
	if l.cut {
		prefix = 1
		line = append(line, '\n')
	}
	line = append(append(line, b...), '\n')
	n, err := l.w.Write(line)
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	if n >= prefix {
		l.cut = false
	}
	if err == nil {
		return nil
	}
	if part := n - prefix; part > 0 && !l.undo(part) {
		l.cut = true
	}
	err = fmt.Errorf("refusal log: %w", err)
	l.report(err)
	return err
}

// undo removes the last n bytes written, a cut line, from a log file.
func (l *RefusalLog) undo(n int) bool {
	f, ok := l.w.(truncater)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() < int64(n) {
		return false
	}
	return f.Truncate(fi.Size()-int64(n)) == nil
}

// report counts a failure and logs it unless one was logged within
// ReportEvery; l.mu is held.
func (l *RefusalLog) report(err error) {
	l.failures++
	now := l.Now()
	if !l.reported.IsZero() && now.Sub(l.reported) < l.ReportEvery {
		l.suppressed++
		return
	}
	logger := l.Logger
	if logger == nil {
		logger = slog.Default()
	}
	logger.Error("refusal log write failed; refusals are being lost",
		slog.Any("error", err),
		slog.Int("suppressed", l.suppressed),
		slog.Int64("failures_total", l.failures))
	l.reported, l.suppressed = now, 0
}

// Failures counts the refusals the log failed to write.
func (l *RefusalLog) Failures() int64 {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failures
}
