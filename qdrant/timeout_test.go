package qdrant

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/internal/stallproxy"
	"github.com/textbook-rag/rag/qdrant/qdranttest"
)

// A Qdrant that stops answering costs a search its timeout: a
// qdrant_error, not a reader waiting on an open connection.
func TestSearchTimeout(t *testing.T) {
	_, addr := qdranttest.Start(t)
	u, err := url.Parse(addr)
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := stallproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	ctx := context.Background()
	s, err := Open(ctx, Config{URL: "http://" + proxy.Addr(), SearchTimeout: 200 * time.Millisecond}, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Replace(ctx, []rag.Chunk{chunk(1)}, [][]float32{{1, 0, 0}}); err != nil {
		t.Fatal(err)
	}

	proxy.Stall()
	// Without a timeout the search would wait for the server; let it
	// answer again in the end so that such a failure is reported.
	safety := time.AfterFunc(15*time.Second, proxy.Resume)
	defer safety.Stop()
	_, err = s.Search(ctx, []float32{1, 0, 0}, 1)
	if rag.ErrorCode(err) != rag.EQDRANT {
		t.Fatalf("search against a stalled Qdrant = %v, want qdrant_error", err)
	}
	proxy.Resume()
	if got, err := s.Search(ctx, []float32{1, 0, 0}, 1); err != nil || len(got) != 1 {
		t.Errorf("after the stall: %v, %v", got, err)
	}
}
