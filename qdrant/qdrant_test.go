package qdrant

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/qdrant/qdranttest"
)

func chunk(i int) rag.Chunk {
	return rag.Chunk{
		ID:   "00000000-0000-5000-8000-" + strings.Repeat("0", 12-len(strconv.Itoa(i))) + strconv.Itoa(i),
		Text: "chunk " + strconv.Itoa(i), ModuleID: "m", ChapterID: "c", SectionHeading: "S" + strconv.Itoa(i), ChunkIndex: i,
		Anchor: "s", ChapterPath: "m/c", Headings: []rag.Heading{{Level: 2, Text: "S", Anchor: "s"}},
	}
}

func TestStore(t *testing.T) {
	f, url := qdranttest.Start(t)
	ctx := context.Background()
	s, err := Open(ctx, Config{URL: url, APIKey: "secret", BatchSize: 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if f.Collections["textbook_chunks"] != 3 {
		t.Errorf("collection not created with 3 dims: %v", f.Collections)
	}
	if strings.Join(f.Indexes, ",") != "module_id:FieldTypeKeyword,chapter_id:FieldTypeKeyword" {
		t.Errorf("payload indexes %v", f.Indexes)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	for _, k := range f.APIKeys {
		if k != "secret" {
			t.Errorf("api-key metadata %q", k)
		}
	}

	chunks := []rag.Chunk{chunk(1), chunk(2), chunk(3), chunk(4), chunk(5)}
	vecs := [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {-1, 0, 0}}
	if err := s.Replace(ctx, chunks, vecs); err != nil {
		t.Fatal(err)
	}
	if f.Upserts != 3 || len(f.Points) != 5 {
		t.Errorf("%d upserts, %d points; want batches of 2", f.Upserts, len(f.Points))
	}
	res, err := s.Search(ctx, []float32{1, 0, 0}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].ID != chunks[0].ID || res[0].Score < 0.999 || res[0].SectionHeading != "S1" || res[0].ChunkIndex != 1 || len(res[0].Headings) != 1 {
		t.Errorf("search %+v", res)
	}
	for _, r := range res {
		if r.Score < 0 || r.Score > 1 {
			t.Errorf("score %v outside [0, 1]", r.Score)
		}
	}
	if f.Thresholds != 0 {
		t.Error("search sent a score threshold: the refusal gates belong to the tutor")
	}

	// A re-ingest without chunks 4 and 5 deletes them.
	if err := s.Replace(ctx, chunks[:3], vecs[:3]); err != nil {
		t.Fatal(err)
	}
	if len(f.Points) != 3 {
		t.Errorf("%d points after re-ingest, want 3", len(f.Points))
	}

	// Another embedder dimension on the existing collection is a clear error.
	_, err = Open(ctx, Config{URL: url}, 1536)
	if err == nil || !strings.Contains(err.Error(), "collection textbook_chunks has 3 dims, embedder gives 1536: re-ingest") {
		t.Errorf("dimension mismatch: %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2e9)
	defer cancel()
	_, err := Open(ctx, Config{URL: "http://127.0.0.1:1"}, 3)
	if rag.ErrorCode(err) != rag.EQDRANT {
		t.Errorf("unreachable server: %v (code %s)", err, rag.ErrorCode(err))
	}
	if _, err := Open(ctx, Config{URL: "::bad"}, 3); err == nil {
		t.Error("a bad URL was accepted")
	}
}
