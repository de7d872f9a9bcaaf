package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/textbook-rag/rag"
)

// pathQuestions are the two questions the request-path benchmark asks: one
// the tutor refuses (out of scope) and one it answers.
var pathQuestions = []struct {
	name     string
	question string
	refusal  bool
}{
	{"refusal", "What is a good recipe for banana bread?", true},
	{"answer", "How does a LiDAR measure distance?", false},
}

// pathClients is how many requests each CPU has in flight.
const pathClients = 16

// discardHistory is a rag.History that keeps nothing: the request path
// without the history write.
type discardHistory struct{}

func (discardHistory) AppendExchange(context.Context, string, rag.Message, rag.Message) error {
	return nil
}
func (discardHistory) Messages(context.Context, string) ([]rag.Message, error) { return nil, nil }
func (discardHistory) MessagesPage(context.Context, string, rag.PageQuery) (rag.MessagePage, error) {
	return rag.MessagePage{}, nil
}
func (discardHistory) CheckSessionRoom(context.Context, string) error { return nil }
func (discardHistory) Ping(context.Context) error                     { return nil }
func (discardHistory) Close() error                                   { return nil }

// BenchmarkRequestPath measures POST /api/chat of the real wiring (shared
// textbook, or the sample book without ../shared; SQLite history and the
// refusal log in b.TempDir(); no rate limit) from parallel clients, per
// refusal and per answer:
//
//	ask        tutor.Ask alone (the pipeline, as BenchmarkAsk)
//	handler    the HTTP handler called in-process (middleware, JSON, metrics, history, refusal log), no TCP
//	http       the whole path over loopback TCP, client included
//	http-nohistory, http-nolog   the same without the history write or without the refusal log
//
// Run it with -cpu 1,2,4; ns/op, cpu-ns/op and allocs/op are per request.
// Each CPU drives pathClients requests at once, as a loaded server sees
// them, so the history writer commits them in groups.
// cpu-ns/op is the process's CPU time (server, client and garbage
// collector together) per request: on a shared machine it holds still
// where ns/op, wall time, does not.
func BenchmarkRequestPath(b *testing.B) {
	docs := ""
	if _, err := os.Stat(sharedCorpus); err == nil {
		docs = sharedCorpus
	}
	cfg := DefaultConfig()
	cfg.Docs = docs
	cfg.Data = b.TempDir()
	cfg.ChatRate, cfg.ChunksRate = 0, 0
	cfg.RefusalLog = filepath.Join(cfg.Data, "refusals.log")
	s := NewMain(cfg, io.Discard)
	if err := s.OpenService(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	h := s.Server.Handler()
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	defer client.CloseIdleConnections()

	for _, pq := range pathQuestions {
		body, _ := json.Marshal(map[string]string{"question": pq.question})
		req := rag.ChatRequest{Question: pq.question}
		if err := req.Normalize(); err != nil {
			b.Fatal(err)
		}
		if resp, err := s.Tutor.Ask(context.Background(), req, nil); err != nil || resp.WasRefusal != pq.refusal {
			b.Fatalf("%q: refusal %v, want %v (err %v)", pq.question, resp.WasRefusal, pq.refusal, err)
		}
		b.Run(pq.name+"/ask", func(b *testing.B) {
			defer reportCPU(b)()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := s.Tutor.Ask(context.Background(), req, nil); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
		b.Run(pq.name+"/handler", func(b *testing.B) {
			defer reportCPU(b)()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r := httptest.NewRequest(http.MethodPost, "/api/chat", bytes.NewReader(body))
					r.Header.Set("Content-Type", "application/json")
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					if w.Code != http.StatusOK {
						b.Errorf("status %d: %s", w.Code, w.Body)
						return
					}
				}
			})
		})
		post := func(b *testing.B) {
			defer reportCPU(b)()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := client.Post(srv.URL+"/api/chat", "application/json", bytes.NewReader(body))
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
		}
		b.Run(pq.name+"/http", post)
		b.Run(pq.name+"/http-nohistory", func(b *testing.B) {
			s.Server.History = discardHistory{}
			defer func() { s.Server.History = s.History }()
			post(b)
		})
		b.Run(pq.name+"/http-nolog", func(b *testing.B) {
			s.Server.Refusals = nil
			defer func() { s.Server.Refusals = s.Refusals }()
			post(b)
		})
	}
}

// reportCPU reports allocations and, when the returned func runs, the
// process CPU time per op since it was called.
func reportCPU(b *testing.B) func() {
	b.ReportAllocs()
	b.SetParallelism(pathClients)
	start := processCPU()
	b.ResetTimer()
	return func() {
		b.StopTimer()
		if cpu := processCPU() - start; cpu > 0 {
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
		}
	}
}
