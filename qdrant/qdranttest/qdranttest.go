// Package qdranttest is an in-process Qdrant for tests: the gRPC services
// of the official client's generated code over an in-memory store.
package qdranttest

import (
	"context"
	"math"
	"net"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// Server implements the Qdrant gRPC services the adapter uses (from the
// client's generated code), over in-memory collections that really compute
// cosine similarity. Its fields record what clients asked, for tests.
type Server struct {
	qdrant.UnimplementedQdrantServer

	mu          sync.Mutex
	Collections map[string]uint64 // name -> dimension
	Indexes     []string
	Points      map[string]*qdrant.PointStruct
	Upserts     int
	Queries     int
	APIKeys     []string
	Thresholds  int // queries that sent a score threshold
}

func (f *Server) key(ctx context.Context) {
	md, _ := metadata.FromIncomingContext(ctx)
	f.mu.Lock()
	f.APIKeys = append(f.APIKeys, strings.Join(md.Get("api-key"), ","))
	f.mu.Unlock()
}

func (f *Server) HealthCheck(ctx context.Context, _ *qdrant.HealthCheckRequest) (*qdrant.HealthCheckReply, error) {
	f.key(ctx)
	return &qdrant.HealthCheckReply{Title: "fake", Version: "1.17.0"}, nil
}

// fakeCollections and fakePoints serve the two services whose method names
// overlap (both have Delete) over the same fake.
type fakeCollections struct {
	qdrant.UnimplementedCollectionsServer
	*Server
}

type fakePoints struct {
	qdrant.UnimplementedPointsServer
	*Server
}

func (f fakeCollections) CollectionExists(ctx context.Context, r *qdrant.CollectionExistsRequest) (*qdrant.CollectionExistsResponse, error) {
	f.key(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.Collections[r.GetCollectionName()]
	return &qdrant.CollectionExistsResponse{Result: &qdrant.CollectionExists{Exists: ok}}, nil
}

func (f fakeCollections) Create(ctx context.Context, r *qdrant.CreateCollection) (*qdrant.CollectionOperationResponse, error) {
	p := r.GetVectorsConfig().GetParams()
	if p.GetDistance() != qdrant.Distance_Cosine {
		return nil, grpcError("distance must be cosine")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Collections[r.GetCollectionName()] = p.GetSize()
	return &qdrant.CollectionOperationResponse{Result: true}, nil
}

func (f fakeCollections) Get(ctx context.Context, r *qdrant.GetCollectionInfoRequest) (*qdrant.GetCollectionInfoResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	dim := f.Collections[r.GetCollectionName()]
	return &qdrant.GetCollectionInfoResponse{Result: &qdrant.CollectionInfo{Config: &qdrant.CollectionConfig{
		Params: &qdrant.CollectionParams{VectorsConfig: qdrant.NewVectorsConfig(&qdrant.VectorParams{Size: dim, Distance: qdrant.Distance_Cosine})},
	}}}, nil
}

func (f fakePoints) CreateFieldIndex(ctx context.Context, r *qdrant.CreateFieldIndexCollection) (*qdrant.PointsOperationResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Indexes = append(f.Indexes, r.GetFieldName()+":"+r.GetFieldType().String())
	return &qdrant.PointsOperationResponse{Result: &qdrant.UpdateResult{}}, nil
}

func (f fakePoints) Upsert(ctx context.Context, r *qdrant.UpsertPoints) (*qdrant.PointsOperationResponse, error) {
	if !r.GetWait() {
		return nil, grpcError("upserts must wait")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Upserts++
	for _, p := range r.GetPoints() {
		f.Points[p.GetId().GetUuid()] = p
	}
	return &qdrant.PointsOperationResponse{Result: &qdrant.UpdateResult{}}, nil
}

func (f fakePoints) Delete(ctx context.Context, r *qdrant.DeletePoints) (*qdrant.PointsOperationResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range r.GetPoints().GetPoints().GetIds() {
		delete(f.Points, id.GetUuid())
	}
	return &qdrant.PointsOperationResponse{Result: &qdrant.UpdateResult{}}, nil
}

func (f fakePoints) Scroll(ctx context.Context, r *qdrant.ScrollPoints) (*qdrant.ScrollResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for id := range f.Points {
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
	f.Queries++
	if r.ScoreThreshold != nil {
		f.Thresholds++
	}
	q := r.GetQuery().GetNearest().GetDense().GetData()
	var out []*qdrant.ScoredPoint
	for id, p := range f.Points {
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

// Start serves a fake Qdrant on 127.0.0.1 until the test ends and returns
// it with its URL.
func Start(t testing.TB) (*Server, string) {
	t.Helper()
	f := &Server{Collections: map[string]uint64{}, Points: map[string]*qdrant.PointStruct{}}
	srv := grpc.NewServer()
	qdrant.RegisterQdrantServer(srv, f)
	qdrant.RegisterCollectionsServer(srv, fakeCollections{Server: f})
	qdrant.RegisterPointsServer(srv, fakePoints{Server: f})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return f, "http://" + ln.Addr().String()
}
