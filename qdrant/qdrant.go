// Package qdrant keeps chunk vectors in Qdrant (self-hosted or Qdrant
// Cloud) through the official Go client over gRPC. The refusal gates stay
// in Go: searches ask for the top k with no score threshold, because the
// refusal log needs the low scores too.
package qdrant

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"time"

	"github.com/qdrant/go-client/qdrant"

	"github.com/textbook-rag/rag"
)

var _ rag.VectorStore = (*VectorStore)(nil)

// Config says where the collection is.
type Config struct {
	URL        string // http://localhost:6334, https://xyz.cloud.qdrant.io:6334
	APIKey     string
	Collection string // default "textbook_chunks"
	BatchSize  int    // points per upsert, default 128
	// SearchTimeout bounds one search, which runs while a reader waits
	// (default DefaultSearchTimeout).
	SearchTimeout time.Duration
}

// DefaultSearchTimeout is Config.SearchTimeout's default.
const DefaultSearchTimeout = 10 * time.Second

// VectorStore is a rag.VectorStore in one Qdrant collection.
type VectorStore struct {
	client     *qdrant.Client
	collection string
	batch      int
	dim        int
	timeout    time.Duration
}

func qerr(step string, err error) error {
	return &rag.Error{Code: rag.EQDRANT, Message: "The vector database failed.", Err: fmt.Errorf("qdrant %s: %w", step, err)}
}

// Open connects, creates the collection when it is missing (cosine
// distance, keyword indexes on module_id and chapter_id) and checks that an
// existing one has the embedder's dimension.
func Open(ctx context.Context, cfg Config, dim int) (*VectorStore, error) {
	if cfg.Collection == "" {
		cfg.Collection = "textbook_chunks"
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 128
	}
	if cfg.SearchTimeout <= 0 {
		cfg.SearchTimeout = DefaultSearchTimeout
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("qdrant: invalid URL %q", cfg.URL)
	}
	port := 6334
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("qdrant: invalid port in %q", cfg.URL)
		}
	}
	qc := &qdrant.Config{Host: u.Hostname(), Port: port, APIKey: cfg.APIKey, SkipCompatibilityCheck: true}
	if u.Scheme == "https" {
		qc.UseTLS = true
		qc.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	client, err := qdrant.NewClient(qc)
	if err != nil {
		return nil, qerr("connect", err)
	}
	s := &VectorStore{client: client, collection: cfg.Collection, batch: cfg.BatchSize, dim: dim, timeout: cfg.SearchTimeout}
	if err := s.ensureCollection(ctx); err != nil {
		client.Close()
		return nil, err
	}
	return s, nil
}

func (s *VectorStore) ensureCollection(ctx context.Context) error {
	exists, err := s.client.CollectionExists(ctx, s.collection)
	if err != nil {
		return qerr("collection exists", err)
	}
	if exists {
		info, err := s.client.GetCollectionInfo(ctx, s.collection)
		if err != nil {
			return qerr("collection info", err)
		}
		if have := int(info.GetConfig().GetParams().GetVectorsConfig().GetParams().GetSize()); have != s.dim {
			return fmt.Errorf("collection %s has %d dims, embedder gives %d: re-ingest into a new collection (QDRANT_COLLECTION) or delete this one", s.collection, have, s.dim)
		}
		return nil
	}
	err = s.client.CreateCollection(ctx, &qdrant.CreateCollection{
		CollectionName: s.collection,
		VectorsConfig:  qdrant.NewVectorsConfig(&qdrant.VectorParams{Size: uint64(s.dim), Distance: qdrant.Distance_Cosine}),
	})
	if err != nil {
		return qerr("create collection", err)
	}
	for _, field := range []string{"module_id", "chapter_id"} {
		_, err := s.client.CreateFieldIndex(ctx, &qdrant.CreateFieldIndexCollection{
			CollectionName: s.collection,
			FieldName:      field,
			FieldType:      qdrant.FieldType_FieldTypeKeyword.Enum(),
			Wait:           qdrant.PtrOf(true),
		})
		if err != nil {
			return qerr("create index "+field, err)
		}
	}
	return nil
}

// Replace upserts the chunks in batches (waiting for each) under their
// stable ids, then deletes the points of chunks that no longer exist.
func (s *VectorStore) Replace(ctx context.Context, chunks []rag.Chunk, vectors [][]float32) error {
	if len(chunks) != len(vectors) {
		return fmt.Errorf("qdrant replace: %d chunks, %d vectors", len(chunks), len(vectors))
	}
	keep := map[string]bool{}
	for start := 0; start < len(chunks); start += s.batch {
		end := min(start+s.batch, len(chunks))
		points := make([]*qdrant.PointStruct, 0, end-start)
		for i := start; i < end; i++ {
			if len(vectors[i]) != s.dim {
				return fmt.Errorf("qdrant replace: vector %d has %d dims, want %d", i, len(vectors[i]), s.dim)
			}
			keep[chunks[i].ID] = true
			points = append(points, &qdrant.PointStruct{
				Id:      qdrant.NewID(chunks[i].ID),
				Vectors: qdrant.NewVectorsDense(vectors[i]),
				Payload: payload(chunks[i]),
			})
		}
		if _, err := s.client.Upsert(ctx, &qdrant.UpsertPoints{CollectionName: s.collection, Wait: qdrant.PtrOf(true), Points: points}); err != nil {
			return qerr("upsert", err)
		}
	}
	stale, err := s.staleIDs(ctx, keep)
	if err != nil {
		return err
	}
	if len(stale) > 0 {
		_, err := s.client.Delete(ctx, &qdrant.DeletePoints{CollectionName: s.collection, Wait: qdrant.PtrOf(true), Points: qdrant.NewPointsSelectorIDs(stale)})
		if err != nil {
			return qerr("delete stale points", err)
		}
	}
	return nil
}

// staleIDs scrolls through every point id and returns those not kept.
func (s *VectorStore) staleIDs(ctx context.Context, keep map[string]bool) ([]*qdrant.PointId, error) {
	var stale []*qdrant.PointId
	var offset *qdrant.PointId
	const page = 256
	for {
		pts, err := s.client.Scroll(ctx, &qdrant.ScrollPoints{
			CollectionName: s.collection,
			Offset:         offset,
			Limit:          qdrant.PtrOf(uint32(page + 1)),
			WithPayload:    qdrant.NewWithPayload(false),
		})
		if err != nil {
			return nil, qerr("scroll", err)
		}
		// The offset point starts the next page: one extra says there is one.
		more := len(pts) > page
		if more {
			offset = pts[page].GetId()
			pts = pts[:page]
		}
		for _, p := range pts {
			if id := p.GetId().GetUuid(); !keep[id] {
				stale = append(stale, p.GetId())
			}
		}
		if !more {
			return stale, nil
		}
	}
}

// Search returns the k nearest chunks; cosine scores clamped to [0, 1].
func (s *VectorStore) Search(ctx context.Context, vector []float32, k int) ([]rag.ScoredChunk, error) {
	if len(vector) != s.dim {
		return nil, fmt.Errorf("qdrant search: vector has %d dims, want %d", len(vector), s.dim)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	pts, err := s.client.Query(ctx, &qdrant.QueryPoints{
		CollectionName: s.collection,
		Query:          qdrant.NewQueryDense(vector),
		Limit:          qdrant.PtrOf(uint64(k)),
		WithPayload:    qdrant.NewWithPayload(true),
	})
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, &rag.Error{Code: rag.EQDRANT, Message: "The vector database did not answer in time.",
				Err: fmt.Errorf("qdrant query: no answer within %s: %w", s.timeout, err)}
		}
		return nil, qerr("query", err)
	}
	out := make([]rag.ScoredChunk, 0, len(pts))
	for _, p := range pts {
		c := chunkOf(p.GetId().GetUuid(), p.GetPayload())
		out = append(out, rag.ScoredChunk{Chunk: c, Score: math.Max(0, math.Min(1, float64(p.GetScore())))})
	}
	return out, nil
}

// Ping checks the server answers.
func (s *VectorStore) Ping(ctx context.Context) error {
	if _, err := s.client.HealthCheck(ctx); err != nil {
		return qerr("health check", err)
	}
	return nil
}

// Close closes the connection.
func (s *VectorStore) Close() error { return s.client.Close() }

func payload(c rag.Chunk) map[string]*qdrant.Value {
	headings, _ := json.Marshal(c.Headings)
	return qdrant.NewValueMap(map[string]any{
		"text":            c.Text,
		"module_id":       c.ModuleID,
		"chapter_id":      c.ChapterID,
		"section_heading": c.SectionHeading,
		"chunk_index":     int64(c.ChunkIndex),
		"anchor":          c.Anchor,
		"chapter_path":    c.ChapterPath,
		"page_path":       c.PagePath,
		"module_title":    c.ModuleTitle,
		"chapter_title":   c.ChapterTitle,
		"headings":        string(headings),
	})
}

func chunkOf(id string, p map[string]*qdrant.Value) rag.Chunk {
	str := func(k string) string { return p[k].GetStringValue() }
	c := rag.Chunk{
		ID: id, Text: str("text"), ModuleID: str("module_id"), ChapterID: str("chapter_id"),
		SectionHeading: str("section_heading"), ChunkIndex: int(p["chunk_index"].GetIntegerValue()),
		Anchor: str("anchor"), ChapterPath: str("chapter_path"), PagePath: str("page_path"), ModuleTitle: str("module_title"), ChapterTitle: str("chapter_title"),
	}
	_ = json.Unmarshal([]byte(str("headings")), &c.Headings)
	return c
}
