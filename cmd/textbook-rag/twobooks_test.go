package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag/postgres/pgtest"
)

// Two books served from one Postgres, fuzzed with each other's session,
// message and request ids: no request gets a 5xx (nor a stream that ends
// in a server's error), and no response of one book names an id the other made.
func TestTwoBooksOnePostgresFuzz(t *testing.T) {
	url := pgtest.SchemaURL(t)
	bases := map[string]string{}
	for _, book := range []string{"robotics", "biology"} {
		base, _ := startService(t, func(c *Config) {
			c.DatabaseURL = url
			c.BookKey = book
		})
		bases[book] = base
	}
	var (
		mu       sync.Mutex
		sessions []string              // every session id sent or seen, of either book
		made     = map[string]string{} // a message id → the book that made it
		server5  int
		leaks    int
	)
	pick := func(r *rand.Rand, list []string) string {
		if len(list) == 0 || r.IntN(4) == 0 {
			return uuid.NewString()
		}
		return list[r.IntN(len(list))]
	}
	questions := []string{"How do nodes talk?", "What is a topic?", "Tell me about bread baking."}
	requestIDs := []string{"", "1", "2", "42", "q-7"}
	const workers, each = 4, 60
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 37))
			for range each {
				book := "robotics"
				if r.IntN(2) == 0 {
					book = "biology"
				}
				mu.Lock()
				sid := pick(r, sessions)
				var mids []string
				for id := range made {
					mids = append(mids, id)
				}
				mu.Unlock()
				var (
					res *http.Response
					err error
				)
				switch r.IntN(4) {
				case 0, 1:
					body := map[string]string{"question": questions[r.IntN(len(questions))], "request_id": requestIDs[r.IntN(len(requestIDs))]}
					if r.IntN(4) > 0 {
						body["session_id"] = sid
					}
					path := "/api/chat"
					if r.IntN(2) == 0 {
						path = "/api/chat/stream"
					}
					j, _ := json.Marshal(body)
					res, err = http.Post(bases[book]+path, "application/json", bytes.NewReader(j))
				case 2:
					res, err = http.Get(bases[book] + "/api/chat/sessions/" + sid + "/messages")
				default:
					j, _ := json.Marshal(map[string]string{"session_id": sid, "rating": "helpful"})
					res, err = http.Post(bases[book]+"/api/chat/messages/"+pick(r, mids)+"/feedback", "application/json", bytes.NewReader(j))
				}
				if err != nil {
					t.Error(err)
					return
				}
				data, _ := io.ReadAll(res.Body)
				res.Body.Close()
				mu.Lock()
				// A stream's error event carries the status's code.
				if res.StatusCode >= 500 || strings.Contains(string(data), `"error":"internal_error"`) || strings.Contains(string(data), `"error":"unavailable"`) {
					server5++
					t.Errorf("%s: %d %s", book, res.StatusCode, data)
				}
				for id, maker := range made {
					if maker != book && strings.Contains(string(data), id) {
						leaks++
						t.Errorf("%s's response names %s's message %s: %s", book, maker, id, data)
					}
				}
				for _, id := range ids(data, "message_id", "id") {
					if _, ok := made[id]; !ok {
						made[id] = book
					}
				}
				sessions = append(sessions, ids(data, "session_id")...)
				sessions = append(sessions, sid)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Logf("%d requests over two books on one Postgres: %d × 5xx, %d responses naming the other book's messages, %d message ids made", workers*each, server5, leaks, len(made))
}

// ids returns the values of the JSON string fields named keys anywhere in
// data (a JSON body or Server-Sent Events).
func ids(data []byte, keys ...string) []string {
	var out []string
	for _, key := range keys {
		rest := string(data)
		for {
			i := strings.Index(rest, `"`+key+`":"`)
			if i < 0 {
				break
			}
			rest = rest[i+len(key)+4:]
			if j := strings.IndexByte(rest, '"'); j > 0 {
				if _, err := uuid.Parse(rest[:j]); err == nil {
					out = append(out, rest[:j])
				}
			}
		}
	}
	return out
}
