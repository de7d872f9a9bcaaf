package qdrant

import (
	"context"
	"math"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/textbook-rag/rag"
)

// fakeQdrant implements the Qdrant gRPC services the adapter uses, over an
// in-memory collection that really computes cosine similarity.
type fakeQdrant struct {
	qdrant.UnimplementedQdrantServer

	mu          sync.Mutex
	collections map[string]uint64 // name -> dimension
	indexes     []string
	points      map[string]*qdrant.PointStruct
	upserts     int
	apiKeys     []string
	thresholds  int // queries that sent a score threshold
}

func (f *fakeQdrant) key(ctx context.Context) {
	md, _ := metadata.FromIncomingContext(ctx)
	f.mu.Lock()
	f.apiKeys = append(f.apiKeys, strings.Join(md.Get("api-key"), ","))
	f.mu.Unlock()
}

func (f *fakeQdrant) HealthCheck(ctx context.Context, _ *qdrant.HealthCheckRequest) (*qdrant.HealthCheckReply, error) {
	f.key(ctx)
	return &qdrant.HealthCheckReply{Title: "fake", Version: "1.17.0"}, nil
}

// fakeCollections and fakePoints serve the two services whose method names
// overlap (both have Delete) over the same fake.
type fakeCollections struct {
	qdrant.UnimplementedCollectionsServer
	*fakeQdrant
}

type fakePoints struct {
	qdrant.UnimplementedPointsServer
	*fakeQdrant
}

func (f fakeCollections) CollectionExists(ctx context.Context, r *qdrant.CollectionExistsRequest) (*qdrant.CollectionExistsResponse, error) {
	f.key(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.collections[r.GetCollectionName()]
	return &qdrant.CollectionExistsResponse{Result: &qdrant.CollectionExists{Exists: ok}}, nil
}

func (f fakeCollections) Create(ctx context.Context, r *qdrant.CreateCollection) (*qdrant.CollectionOperationResponse, error) {
	p := r.GetVectorsConfig().GetParams()
	if p.GetDistance() != qdrant.Distance_Cosine {
		return nil, grpcError("distance must be cosine")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.collections[r.GetCollectionName()] = p.GetSize()
	return &qdrant.CollectionOperationResponse{Result: true}, nil
}

func (f fakeCollections) Get(ctx context.Context, r *qdrant.GetCollectionInfoRequest) (*qdrant.GetCollectionInfoResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	dim := f.collections[r.GetCollectionName()]
	return &qdrant.GetCollectionInfoResponse{Result: &qdrant.CollectionInfo{Config: &qdrant.CollectionConfig{
		Params: &qdrant.CollectionParams{VectorsConfig: qdrant.NewVectorsConfig(&qdrant.VectorParams{Size: dim, Distance: qdrant.Distance_Cosine})},
	}}}, nil
}

func (f fakePoints) CreateFieldIndex(ctx context.Context, r *qdrant.CreateFieldIndexCollection) (*qdrant.PointsOperationResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.indexes = append(f.indexes, r.GetFieldName()+":"+r.GetFieldType().String())
	return &qdrant.PointsOperationResponse{Result: &qdrant.UpdateResult{}}, nil
}

func (f fakePoints) Upsert(ctx context.Context, r *qdrant.UpsertPoints) (*qdrant.PointsOperationResponse, error) {
	if !r.GetWait() {
		return nil, grpcError("upserts must wait")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.upserts++
	for _, p := range r.GetPoints() {
		f.points[p.GetId().GetUuid()] = p
	}
	return &qdrant.PointsOperationResponse{Result: &qdrant.UpdateResult{}}, nil
}

func (f fakePoints) Delete(ctx context.Context, r *qdrant.DeletePoints) (*qdrant.PointsOperationResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range r.GetPoints().GetPoints().GetIds() {
		delete(f.points, id.GetUuid())
	}
	return &qdrant.PointsOperationResponse{Result: &qdrant.UpdateResult{}}, nil
}

func (f fakePoints) Scroll(ctx context.Context, r *qdrant.ScrollPoints) (*qdrant.ScrollResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for id := range f.points {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	start := 0
	if off := r.GetOffset().GetUuid(); off != "" {
		start = sort.SearchStrings(ids, off)
	}
	end := min(start+int(r.GetLimit()), len(ids))
	var out []*qdrant.RetrievedPoint
	for _, id := range ids[start:end] {
		out = append(out, &qdrant.RetrievedPoint{Id: qdrant.NewID(id)})
	}
	return &qdrant.ScrollResponse{Result: out}, nil
}

func vectorOf(p *qdrant.PointStruct) []float32 {
	v := p.GetVectors().GetVector()
	if d := v.GetDense().GetData(); len(d) > 0 {
		return d
	}
	return v.GetData()
}

func (f fakePoints) Query(ctx context.Context, r *qdrant.QueryPoints) (*qdrant.QueryResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.ScoreThreshold != nil {
		f.thresholds++
	}
	q := r.GetQuery().GetNearest().GetDense().GetData()
	var out []*qdrant.ScoredPoint
	for id, p := range f.points {
		out = append(out, &qdrant.ScoredPoint{Id: qdrant.NewID(id), Payload: p.GetPayload(), Score: float32(cosine(q, vectorOf(p)))})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	if n := int(r.GetLimit()); len(out) > n {
		out = out[:n]
	}
	return &qdrant.QueryResponse{Result: out}, nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

type statusErr string

func (e statusErr) Error() string { return string(e) }

func grpcError(msg string) error { return statusErr(msg) }

func startFake(t *testing.T) (*fakeQdrant, string) {
	t.Helper()
	f := &fakeQdrant{collections: map[string]uint64{}, points: map[string]*qdrant.PointStruct{}}
	srv := grpc.NewServer()
	qdrant.RegisterQdrantServer(srv, f)
	qdrant.RegisterCollectionsServer(srv, fakeCollections{fakeQdrant: f})
	qdrant.RegisterPointsServer(srv, fakePoints{fakeQdrant: f})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return f, "http://" + ln.Addr().String()
}

func chunk(i int) rag.Chunk {
	return rag.Chunk{
		ID:   "00000000-0000-5000-8000-" + strings.Repeat("0", 12-len(strconv.Itoa(i))) + strconv.Itoa(i),
		Text: "chunk " + strconv.Itoa(i), ModuleID: "m", ChapterID: "c", SectionHeading: "S" + strconv.Itoa(i), ChunkIndex: i,
		Anchor: "s", ChapterPath: "m/c", Headings: []rag.Heading{{Level: 2, Text: "S", Anchor: "s"}},
	}
}

func TestStore(t *testing.T) {
	f, url := startFake(t)
	ctx := context.Background()
	s, err := Open(ctx, Config{URL: url, APIKey: "secret", BatchSize: 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if f.collections["textbook_chunks"] != 3 {
		t.Errorf("collection not created with 3 dims: %v", f.collections)
	}
	if strings.Join(f.indexes, ",") != "module_id:FieldTypeKeyword,chapter_id:FieldTypeKeyword" {
		t.Errorf("payload indexes %v", f.indexes)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	for _, k := range f.apiKeys {
		if k != "secret" {
			t.Errorf("api-key metadata %q", k)
		}
	}

	chunks := []rag.Chunk{chunk(1), chunk(2), chunk(3), chunk(4), chunk(5)}
	vecs := [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {-1, 0, 0}}
	if err := s.Replace(ctx, chunks, vecs); err != nil {
		t.Fatal(err)
	}
	if f.upserts != 3 || len(f.points) != 5 {
		t.Errorf("%d upserts, %d points; want batches of 2", f.upserts, len(f.points))
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
	if f.thresholds != 0 {
		t.Error("search sent a score threshold: the refusal gates belong to the tutor")
	}

	// A re-ingest without chunks 4 and 5 deletes them.
	if err := s.Replace(ctx, chunks[:3], vecs[:3]); err != nil {
		t.Fatal(err)
	}
	if len(f.points) != 3 {
		t.Errorf("%d points after re-ingest, want 3", len(f.points))
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
