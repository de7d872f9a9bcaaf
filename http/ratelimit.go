package http

import (
	"maps"
	"sync"
	"sync/atomic"
	"time"
)

// maxBuckets bounds the limiter's memory: past it, idle buckets are swept
// and, if that is not enough, arbitrary buckets are dropped (a dropped
// client simply starts again with a full bucket).
const maxBuckets = 100_000

// limiter is a token bucket per (route group, client IP). A group with
// rate r per minute holds at most r tokens and gains one every 60s/r.
type limiter struct {
	now func() time.Time
	// rates is replaced whole by setRate and only read otherwise, so a
	// group without a limit is let through without taking mu: with the
	// limit off, requests on different cores never queue here.
	rates atomic.Pointer[map[string]int]

	mu        sync.Mutex
	buckets   map[bucketKey]*bucket
	lastSweep time.Time
}

type bucketKey struct{ group, ip string }

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(now func() time.Time) *limiter {
	l := &limiter{now: now, buckets: map[bucketKey]*bucket{}}
	l.rates.Store(&map[string]int{})
	return l
}

func (l *limiter) setRate(group string, perMin int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rates := maps.Clone(*l.rates.Load())
	rates[group] = perMin
	l.rates.Store(&rates)
}

// allow takes a token for ip in group. When none is left it reports how
// long until the next one.
func (l *limiter) allow(group, ip string) (bool, time.Duration) {
	rates := *l.rates.Load()
	rate := rates[group]
	if rate <= 0 {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now, rates)
	interval := time.Minute / time.Duration(rate)
	k := bucketKey{group, ip}
	b, ok := l.buckets[k]
	if !ok {
		b = &bucket{tokens: float64(rate), last: now}
		l.buckets[k] = b
	} else if d := now.Sub(b.last); d > 0 {
		b.tokens = min(float64(rate), b.tokens+float64(d)/float64(interval))
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) * float64(interval))
	return false, wait
}

// sweep drops buckets that have refilled completely (they are equivalent
// to no bucket) once a minute, or at once when the map is full.
func (l *limiter) sweep(now time.Time, rates map[string]int) {
	if len(l.buckets) < maxBuckets && now.Sub(l.lastSweep) < time.Minute {
		return
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		if rate := rates[k.group]; rate <= 0 || now.Sub(b.last) >= time.Minute {
			delete(l.buckets, k)
		}
	}
	for k := range l.buckets {
		if len(l.buckets) < maxBuckets {
			break
		}
		delete(l.buckets, k)
	}
}

// size is the number of buckets held (for tests).
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
