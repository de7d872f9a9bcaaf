package sqlite

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
)

// BenchmarkAppendExchange measures the cost of the session cap's count in
// the writer: parallel writers on short sessions (a new one every 50
// exchanges) with no cap and with the default cap, and one writer on a
// session of 9,000 messages, the count's worst case under that cap.
func BenchmarkAppendExchange(b *testing.B) {
	for _, bc := range []struct {
		name    string
		max     int
		long    int
		workers int
	}{
		{"short/no-cap", 0, 0, 8},
		{"short/cap-10000", 10_000, 0, 8},
		{"long-9000/no-cap", 0, 9_000, 1},
		{"long-9000/cap-1000000", 1_000_000, 9_000, 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			h, err := Open(ctx, b.TempDir()+"/history.db")
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			h.MaxSessionMessages = bc.max
			long := uuid.NewString()
			if bc.long > 0 {
				if _, err := h.db.ExecContext(ctx, `INSERT INTO chat_sessions (id, started_at, created_at) VALUES (?, ?, ?)`, long, formatTime(t0), formatTime(t0)); err != nil {
					b.Fatal(err)
				}
				if _, err := h.db.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
INSERT INTO chat_messages (id, session_id, role, content, created_at, pos)
SELECT printf('00000000-0000-4000-8000-%012x', i), ?, 'user', 'q', ?, i + 1 FROM n`, bc.long, long, formatTime(t0)); err != nil {
					b.Fatal(err)
				}
			}
			b.SetParallelism(bc.workers)
			b.RunParallel(func(pb *testing.PB) {
				sid, n := uuid.NewString(), 0
				for pb.Next() {
					if bc.long > 0 {
						sid = long
					} else if n++; n%50 == 0 {
						sid = uuid.NewString()
					}
					if err := h.AppendExchange(ctx, sid, question(fmt.Sprint("q", n)), answer("a")); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
