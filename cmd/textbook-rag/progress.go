package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/textbook-rag/rag/internal/count"
)

// ingestProgress follows an ingest: the pages read (of all), the chunks
// so far, the step it is in.
type ingestProgress interface {
	Pages(done, total int, path string)
	Chunks(n int)
	Step(step string)
}

var _ ingestProgress = (*progressLine)(nil)

// progressLine is the one status line a long ingest keeps up to date on
// a terminal: the pages read of all, the chunks so far, the time taken and
// the step it is in. It is redrawn every tick as well as at each change,
// so a page that takes a minute to chunk still shows the time passing.
// Piped, ingest prints none of it (see runIngest).
type progressLine struct {
	w     io.Writer
	start time.Time
	now   func() time.Time

	mu          sync.Mutex
	done, total int
	chunks      int
	step        string
	drawn       bool
	stop        chan struct{}
	stopped     chan struct{}
}

// progressTick is how often the line is redrawn while nothing changes.
const progressTick = time.Second

// newProgressLine starts a line on w, redrawn every tick until Finish.
func newProgressLine(w io.Writer, tick time.Duration) *progressLine {
	p := &progressLine{w: w, start: time.Now(), now: time.Now, step: "reading the book", stop: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				p.draw()
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// Pages is markdown.Options.Progress: a page was read and chunked.
func (p *progressLine) Pages(done, total int, path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = done, total
	p.step = "read " + path
	p.draw()
}

// Chunks is markdown.Options.Chunked: the chunks so far.
func (p *progressLine) Chunks(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.chunks = n
}

// Step names what ingest does now ("saving the index", "self-check").
func (p *progressLine) Step(step string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.step = step
	p.draw()
}

// Finish stops the redraws and ends the line, so what follows starts on a
// line of its own.
func (p *progressLine) Finish() {
	close(p.stop)
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}

// draw rewrites the line; p.mu is held.
func (p *progressLine) draw() {
	pages := "0 pages read"
	if p.total > 0 {
		pages = fmt.Sprintf("%d/%d %s", p.done, p.total, count.Noun(p.total, "page"))
	}
	elapsed := p.now().Sub(p.start).Round(100 * time.Millisecond)
	fmt.Fprintf(p.w, "\r\033[K%s, %s, %s: %s", pages, count.Of(p.chunks, "chunk"), elapsed, p.step)
	p.drawn = true
}
