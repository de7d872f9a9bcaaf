package main

import (
	"context"
	"sync"
)

// running counts the work untilDone runs, which may outlive its caller;
// tests wait for it before they remove what it may touch.
var running sync.WaitGroup

// untilDone runs work on a goroutine of its own and returns its result,
// or ctx's error as soon as ctx is done, whichever comes first.
//
// Starting on a large book holds steps that cannot stop part-way: parsing
// an 8 MiB page, counting its tokens, building its index each take a
// second or more, and a signal (SIGINT, SIGTERM) during one would wait for
// its end. With untilDone it is honoured at once: the command returns and
// the process exits. The work, left running in a process that is about to
// exit, stops at its next check of ctx, and undo (when not nil) releases
// what it opened if it got to the end regardless. What a process that
// exits mid-step leaves is what a kill leaves, which the data directory
// and the stores are built for: the index is replaced by a rename and its
// temp files are removed by the next writer, the lock dies with the
// process, an uncommitted transaction is rolled back.
func untilDone[T any](ctx context.Context, work func() (T, error), undo func(T)) (T, error) {
	var (
		mu       sync.Mutex
		finished bool // work returned
		gaveUp   bool // the caller returned without its result
		res      T
		err      error
		done     = make(chan struct{})
	)
	running.Add(1)
	go func() {
		defer running.Done()
		r, e := work()
		mu.Lock()
		res, err, finished = r, e, true
		late := gaveUp
		mu.Unlock()
		close(done)
		if late && e == nil && undo != nil {
			undo(r)
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
		mu.Lock()
		if !finished {
			gaveUp = true
			mu.Unlock()
			var zero T
			return zero, ctx.Err()
		}
		mu.Unlock()
	}
	mu.Lock()
	defer mu.Unlock()
	return res, err
}
