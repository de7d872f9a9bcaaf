package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"sync"
	"testing"
	"time"
)

// loadClients is how many clients send requests at once.
const loadClients = 50

// load sends b.N POST requests from loadClients goroutines over loopback
// and reports requests/s, p50 and p99 latency.
func load(b *testing.B, url string, body []byte) {
	b.Helper()
	tr := &http.Transport{MaxIdleConns: loadClients, MaxIdleConnsPerHost: loadClients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	lat := make([]time.Duration, b.N)
	var next int64 = -1
	var mu sync.Mutex
	var firstErr error
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < loadClients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				next++
				i := next
				mu.Unlock()
				if i >= int64(b.N) {
					return
				}
				t0 := time.Now()
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				lat[i] = time.Since(t0)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkHTTPChat drives POST /api/chat of the real wiring on the shared
// textbook (the sample book without ../shared) with 50 concurrent clients,
// for a refused and an answered question, next to a bare net/http JSON
// echo handler measured in the same run. Compare req/s of chat to echo for
// the ratio.
func BenchmarkHTTPChat(b *testing.B) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v map[string]any
		if err := json.NewDecoder(r.Body).Decode(&v); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}))
	defer echo.Close()

	docs := ""
	if _, err := os.Stat(sharedCorpus); err == nil {
		docs = sharedCorpus
	}
	base, closeSvc := startBenchService(b, docs)
	defer closeSvc()

	refusal, _ := json.Marshal(map[string]string{"question": "What is a good recipe for banana bread?"})
	answer, _ := json.Marshal(map[string]string{"question": "How does a LiDAR measure distance?"})
	b.Run("echo", func(b *testing.B) { load(b, echo.URL, answer) })
	b.Run("chat-refusal", func(b *testing.B) { load(b, base+"/api/chat", refusal) })
	b.Run("chat-answer", func(b *testing.B) { load(b, base+"/api/chat", answer) })
}
