package tutor

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/textbook-rag/rag"
)

// RefusalLog writes the spec's refusal log: one JSON object per line with
// exactly the spec's fields.
type RefusalLog struct {
	mu  sync.Mutex
	w   io.Writer
	Now func() time.Time
}

// NewRefusalLog logs to w (stderr or a file).
func NewRefusalLog(w io.Writer) *RefusalLog { return &RefusalLog{w: w, Now: time.Now} }

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

// Log writes one refusal. A nil log writes nothing. A failing writer is
// not the reader's problem: the refusal still goes out.
func (l *RefusalLog) Log(req rag.ChatRequest, reason rag.RefusalReason, chunks []rag.ScoredChunk) {
	if l == nil || l.w == nil {
		return
	}
	ev := RefusalEvent{
		Event:           "refusal",
		Timestamp:       l.Now().UTC().Format(time.RFC3339),
		SessionID:       req.SessionID,
		Question:        req.Question,
		RefusalReason:   reason,
		ChunksRetrieved: len(chunks),
	}
	if len(chunks) > 0 {
		m := maxScore(chunks)
		ev.MaxScore = &m
	}
	b, _ := json.Marshal(ev)
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(append(b, '\n'))
}
