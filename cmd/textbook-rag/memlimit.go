package main

import (
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
)

// memoryHeadroom is what serve lets the Go runtime hold beyond twice the
// heap it needs once the book is loaded: requests in flight, goroutine
// stacks and the collector's own bookkeeping.
const memoryHeadroom = 16 << 20

// limitMemory sets a soft memory limit for serving, unless GOMEMLIMIT
// already does: twice the live heap after start plus memoryHeadroom
// (about 62 MiB for the shared book). Without it the runtime keeps the
// spans freed after each collection (heap fragmentation), and peak RSS
// under load ends 10-15 MB above what the heap needs. The limit scales
// with the book, so a large book does not make the collector run
// constantly; GOGC still decides when to collect below it. The price is
// more frequent collections under load (on the shared book with 64
// clients, the collector's share of CPU goes from about 6% to 10%).
func limitMemory(log *slog.Logger) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := int64(2*ms.HeapAlloc) + memoryHeadroom
	debug.SetMemoryLimit(limit)
	log.Info("memory limit", slog.Int64("live_heap_bytes", int64(ms.HeapAlloc)), slog.Int64("limit_bytes", limit))
}

// startGCPercent is the collector's target while a start learns the book:
// half the default, so the garbage of reading a large book (several times
// what it keeps) is collected sooner and the start's peak memory stays
// near what the book needs, for a little more collection on the way.
const startGCPercent = 50

// collectSoonerDuringStart sets startGCPercent, unless GOGC says
// otherwise, and returns what puts the previous target back.
func collectSoonerDuringStart() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(startGCPercent)
	return func() { debug.SetGCPercent(old) }
}
