package rag

import (
	"context"
	"slices"
	"testing"
)

// depthRetriever answers each k with its own list, as a retriever that
// picks the k best by one measure and orders them by another does.
type depthRetriever map[int][]ScoredChunk

func (r depthRetriever) Retrieve(ctx context.Context, q string, k int) ([]ScoredChunk, error) {
	return r[k], nil
}

func TestSectionSearch(t *testing.T) {
	chunk := func(id, chapter, anchor string, score float64) ScoredChunk {
		return ScoredChunk{Chunk: Chunk{ID: id, ChapterPath: chapter, Anchor: anchor, SectionHeading: anchor}, Score: score}
	}
	r := depthRetriever{
		5: {chunk("a1", "ch1", "a", 0.66), chunk("b1", "ch2", "b", 0.61), chunk("a2", "ch1", "a", 0.6)},
		searchDepth: {
			chunk("c1", "ch3", "c", 0.69), chunk("a1", "ch1", "a", 0.66), chunk("d1", "ch1", "d", 0.63),
			chunk("e1", "ch4", "e", 0.41), chunk("b1", "ch2", "b", 0.61), chunk("f1", "ch2", "f", 0.55),
		},
	}
	ids := func(hits []SectionHit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.ChunkID)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		first int
		limit int
		want  []string
	}{
		{"the tutor's own chunks first, then deeper ones", 5, 3, []string{"a1", "b1", "c1"}},
		{"every section once, none below the floor", 5, 10, []string{"a1", "b1", "c1", "d1", "f1"}},
		{"a smaller limit is the start of a larger one", 5, 1, []string{"a1"}},
		{"without a first tier, the deep order", 0, 3, []string{"c1", "a1", "d1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := SectionSearch{Retriever: r, Floor: 0.5, First: tc.first}.Search(context.Background(), "q", tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(hits); !slices.Equal(got, tc.want) {
				t.Errorf("sections %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSearchQueryNormalize(t *testing.T) {
	q := SearchQuery{Q: "  what is a topic?  "}
	if err := q.Normalize(); err != nil || q.Q != "what is a topic?" || q.Limit != DefaultSearchResults {
		t.Errorf("Normalize: %v %+v", err, q)
	}
	for _, bad := range []SearchQuery{{Q: ""}, {Q: " \t"}, {Q: "a\x01"}, {Q: "\xff"}, {Q: "a", Limit: -1}, {Q: "a", Limit: MaxSearchResults + 1}} {
		if err := bad.Normalize(); ErrorCode(err) != EINVALID {
			t.Errorf("Normalize(%+v) = %v, want a validation_error", bad, err)
		}
	}
}
