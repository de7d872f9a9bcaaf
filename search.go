package rag

import (
	"context"
	"strings"
	"unicode/utf8"
)

// Limits of a section search (GET /api/search).
const (
	DefaultSearchResults = 5
	MaxSearchResults     = 10
)

// SectionHit is a section of the book that a search found: a place for
// the reader to look, not an answer.
type SectionHit struct {
	// ChunkID is the section's best chunk.
	ChunkID      string
	Heading      string
	Anchor       string
	ChapterTitle string
	ModuleTitle  string
	// ChapterPath is the chapter file's path (Chunk.ChapterPath), PagePath
	// its page's path under the docs URL (Chunk.PagePath).
	ChapterPath string
	PagePath    string
	Score       float64
}

// Searcher finds the sections of the book closest to a query, best first.
type Searcher interface {
	Search(ctx context.Context, query string, limit int) ([]SectionHit, error)
}

// SearchQuery is a search as a reader's site sends it.
type SearchQuery struct {
	Q     string
	Limit int // 0: DefaultSearchResults
	// Confident keeps only the sections the retriever is confident hold
	// the query's subject (at or above the tutor's confident threshold,
	// the spec's 0.7): the places offered after a refusal, which must be
	// where the book really discusses the question, or nowhere.
	Confident bool
}

// Normalize trims the query and validates it: an EINVALID *Error naming
// the parameter ("q" or "limit").
func (q *SearchQuery) Normalize() error {
	if !utf8.ValidString(q.Q) {
		return fieldError(EINVALID, "q", "q must be valid UTF-8")
	}
	q.Q = strings.TrimSpace(q.Q)
	if q.Q == "" {
		return fieldError(EINVALID, "q", "q is required")
	}
	if err := checkControls("q", q.Q); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(q.Q); n > MaxQuestionChars {
		e := fieldError(EINVALID, "q", "q has %d characters; the limit is %d", n, MaxQuestionChars)
		e.Details["max_chars"] = MaxQuestionChars
		return e
	}
	if q.Limit == 0 {
		q.Limit = DefaultSearchResults
	}
	if q.Limit < 1 || q.Limit > MaxSearchResults {
		e := fieldError(EINVALID, "limit", "limit must be a whole number from 1 to %d", MaxSearchResults)
		e.Details["max"] = MaxSearchResults
		return e
	}
	return nil
}

// SectionSearch is a site search over a retriever: the sections of the
// chunks it finds, each once at its best chunk's score.
type SectionSearch struct {
	Retriever Retriever
	// Floor leaves out sections scoring below it: the refusal spec's
	// "nothing relevant" (the tutor's empty threshold) is no place to send
	// a reader.
	Floor float64
	// First is how many chunks the tutor retrieves (its top k): their
	// sections come first, as where the tutor itself found the question
	// discussed; the sections of deeper chunks follow. 0: none first.
	First int
}

// searchDepth is how many chunks a search reads, whatever its limit, so
// that a smaller limit gives the first sections of a larger one: a
// section often has several chunks among the best.
const searchDepth = 4 * MaxSearchResults

// Search returns at most limit sections, best first.
func (s SectionSearch) Search(ctx context.Context, query string, limit int) ([]SectionHit, error) {
	if limit <= 0 {
		return nil, nil
	}
	var hits []SectionHit
	seen := map[string]bool{}
	for _, k := range []int{min(s.First, searchDepth), searchDepth} {
		if k <= 0 {
			continue
		}
		chunks, err := s.Retriever.Retrieve(ctx, query, k)
		if err != nil {
			return nil, err
		}
		for _, c := range chunks {
			key := c.ChapterPath + "#" + c.Anchor
			if c.Score < s.Floor || seen[key] {
				continue
			}
			seen[key] = true
			hits = append(hits, SectionHit{
				ChunkID: c.ID, Heading: c.SectionHeading, Anchor: c.Anchor,
				ChapterTitle: c.ChapterTitle, ModuleTitle: c.ModuleTitle,
				ChapterPath: c.ChapterPath, PagePath: c.PagePath, Score: c.Score,
			})
			if len(hits) == limit {
				return hits, nil
			}
		}
	}
	return hits, nil
}
