package tutor

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/internal/logline"
)

// RefusalLog writes the spec's refusal log: one JSON object per line with
// exactly the spec's fields. Each line is whole or absent: it goes out in
// one write through a logline.Writer, shared with whatever else writes to
// the same destination (stderr's access and application logs), which
// removes a line cut short by a full disk from a file, or ends it before
// the next line elsewhere, so that a cut line never swallows the next
// one, whoever wrote either.
type RefusalLog struct {
	mu  sync.Mutex
	w   *logline.Writer
	Now func() time.Time
	// Logger reports failed writes, at most once per ReportEvery, with
	// the count of failures not reported; nil means slog.Default().
	Logger      *slog.Logger
	ReportEvery time.Duration

	failures   int64
	suppressed int
	reported   time.Time
}

// DefaultReportEvery is how often a failing refusal log is reported.
const DefaultReportEvery = 10 * time.Second

// NewRefusalLog logs to w: stderr, or a file opened with O_APPEND. Pass
// the logline.Writer the other logs of that destination use, if any, so
// that their lines and the refusals' stay apart.
func NewRefusalLog(w io.Writer) *RefusalLog {
	return &RefusalLog{w: logline.New(w), Now: time.Now, ReportEvery: DefaultReportEvery}
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
	if _, err := l.w.Write(append(b, '\n')); err != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		err = fmt.Errorf("refusal log: %w", err)
		l.report(err)
		return err
	}
	return nil
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
