package rag_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
)

// History stores rely on new ids growing with time: each lands at the end
// of the id indexes.
func TestNewIDIsTimeOrdered(t *testing.T) {
	prev := ""
	for i := 0; i < 2000; i++ {
		id := rag.NewID()
		u, err := uuid.Parse(id)
		if err != nil {
			t.Fatalf("NewID() = %q: %v", id, err)
		}
		if u.Version() != 7 {
			t.Fatalf("NewID() = %q is version %d, want 7", id, u.Version())
		}
		if id <= prev {
			t.Fatalf("NewID() = %q after %q: not increasing", id, prev)
		}
		prev = id
	}
}

// Ids made at once on many goroutines are all different, each goroutine's
// grow, and they carry the time they were made, to the millisecond.
func TestNewIDConcurrent(t *testing.T) {
	const workers, each = 8, 500
	ids := make([][]string, workers)
	before := time.Now().Add(-time.Millisecond)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				ids[w] = append(ids[w], rag.NewID())
			}
		}()
	}
	wg.Wait()
	// Ids made in the same instant run the clock ahead, 244 ns each.
	after := time.Now().Add(workers * each * 244 * time.Nanosecond).Add(time.Millisecond)
	seen := map[string]bool{}
	for _, list := range ids {
		for i, id := range list {
			if seen[id] {
				t.Fatalf("NewID() made %q twice", id)
			}
			seen[id] = true
			if i > 0 && id <= list[i-1] {
				t.Fatalf("NewID() = %q after %q on one goroutine", id, list[i-1])
			}
			u, err := uuid.Parse(id)
			if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
				t.Fatalf("NewID() = %q: not a version 7 UUID (%v)", id, err)
			}
			sec, nsec := u.Time().UnixTime()
			if at := time.Unix(sec, nsec); at.Before(before) || at.After(after) {
				t.Fatalf("NewID() = %q carries %v, made between %v and %v", id, at, before, after)
			}
		}
	}
}

// BenchmarkNewID makes ids on every CPU at once, as concurrent requests do.
func BenchmarkNewID(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rag.NewID()
		}
	})
}
