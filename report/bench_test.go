package report

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/sqlite"
)

// BenchmarkReport100k makes the report of a SQLite history of 100,000
// exchanges over 30 days (a fifth of them refused, a twentieth rated).
// The history is seeded once, in one transaction, through the store's
// own schema; each iteration builds the whole report.
func BenchmarkReport100k(b *testing.B) {
	const n = 100_000
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "history.db")
	h, err := sqlite.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	seedBulk(b, path, n)
	from := base
	opts := Options{From: from, To: from.Add(30 * 24 * time.Hour), Chapters: chapters, ShowQuestions: true}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := Build(ctx, h, opts)
		if err != nil {
			b.Fatal(err)
		}
		if r.Totals.Questions != n {
			b.Fatalf("%d questions, want %d", r.Totals.Questions, n)
		}
	}
}

func seedBulk(b *testing.B, path string, n int) {
	db, err := sql.Open("sqlite", path+"?_foreign_keys=1&_busy_timeout=10000")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	sess, _ := tx.Prepare("INSERT INTO chat_sessions (id, started_at, created_at) VALUES (?, ?, ?)")
	msg, _ := tx.Prepare(`INSERT INTO chat_messages (id, session_id, role, content, sources, was_refusal, refusal_reason, question_id, created_at, pos)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	fb, _ := tx.Prepare("INSERT INTO message_feedback (message_id, rating, comment, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
	src, _ := json.Marshal([]rag.Source{topicsSection, nodesSection, {ChunkID: "u1", ChapterID: "ros2/urdf", SectionHeading: "Joints", Anchor: "joints", Path: "ros2/urdf", Score: 0.8}})
	topics := []string{"banana bread", "PID tuning", "Kalman filter", "Webots install", "catkin workspace", "motor driver PWM", "LQR controller", "3D print a gripper"}
	reasons := []rag.RefusalReason{rag.EmptyRetrieval, rag.OutOfScope, rag.InsufficientContext}
	ts := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }
	var sid string
	for i := range n {
		at := base.Add(time.Duration(i) * (30 * 24 * time.Hour / time.Duration(n)))
		if i%10 == 0 {
			sid = uuid.NewString()
			if _, err := sess.Exec(sid, ts(at), ts(at)); err != nil {
				b.Fatal(err)
			}
		}
		qid, aid := uuid.NewString(), uuid.NewString()
		q := fmt.Sprintf("What is a ROS 2 topic, question %d?", i%500)
		var reason any
		content, sources, refusal := "From the book.", string(src), false
		if i%5 == 0 {
			q = fmt.Sprintf("How do I do %s for robot %d?", topics[i%len(topics)], i%50)
			r := reasons[i%len(reasons)]
			reason, content, sources, refusal = string(r), "Refused.", "[]", true
		}
		pos := 2*(i%10) + 1
		if _, err := msg.Exec(qid, sid, "user", q, "[]", false, nil, nil, ts(at), pos); err != nil {
			b.Fatal(err)
		}
		if _, err := msg.Exec(aid, sid, "assistant", content, sources, refusal, reason, qid, ts(at.Add(time.Millisecond)), pos+1); err != nil {
			b.Fatal(err)
		}
		if !refusal && i%20 == 1 {
			if _, err := fb.Exec(aid, "not_helpful", "It does not say.", ts(at), ts(at)); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
