package answer

import (
	"runtime"
	"sync"
)

// maxCachedHeadings bounds the heading texts headingStemSet keeps beyond
// one a chunk: a caller's own chunks bring headings of their own.
const maxCachedHeadings = 10_000

// chunkUnits returns the units of the book's chunk with the given id,
// split on first use; ok is false for a chunk that is not the book's. Two
// questions reading a chunk at once may both split it: the same units.
func (ans *Answerer) chunkUnits(id string) ([]*unit, bool) {
	i, ok := ans.book.Position(id)
	if !ok {
		return nil, false
	}
	if p := ans.units[i].Load(); p != nil {
		return *p, true
	}
	us := ans.splitChunk(i)
	ans.units[i].CompareAndSwap(nil, &us)
	return *ans.units[i].Load(), true
}

// splitAll splits the chunks not split yet, the cores sharing the work,
// for what reads every chunk's units (the sentence model's texts). An
// explanation and the definition probes read the book side instead (see
// bookSide).
func (ans *Answerer) splitAll() {
	chunks := ans.book.Chunks()
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(chunks); i += workers {
				ans.chunkUnits(chunks[i].ID)
			}
		})
	}
	wg.Wait()
}
