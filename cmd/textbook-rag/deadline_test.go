package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag/datadir"
	"github.com/textbook-rag/rag/internal/stallproxy"
	"github.com/textbook-rag/rag/postgres/pgtest"
)

// staller makes the history store stop answering and answer again.
type staller struct {
	edit           func(*Config)
	stall, unstall func(t *testing.T)
}

// sqliteStaller holds the history file's write lock from another
// connection, as another process could.
func sqliteStaller() staller {
	var lock *sql.Tx
	var dir string
	return staller{
		edit: func(c *Config) { dir = datadir.Locate(c.Data, bookSource(*c)) },
		stall: func(t *testing.T) {
			db, err := sql.Open("sqlite", filepath.Join(dir, historyFile)+"?_txlock=immediate")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			if lock, err = db.Begin(); err != nil {
				t.Fatal(err)
			}
			if _, err := lock.Exec("DELETE FROM chat_sessions WHERE id = 'none'"); err != nil {
				t.Fatal(err)
			}
		},
		unstall: func(t *testing.T) { lock.Rollback() },
	}
}

// postgresProxy starts a proxy in front of the test's Postgres schema and
// returns it with the database URL that goes through it.
func postgresProxy(t *testing.T) (*stallproxy.Proxy, string) {
	u, err := url.Parse(pgtest.SchemaURL(t))
	if err != nil {
		t.Fatal(err)
	}
	p, err := stallproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	u.Host = p.Addr()
	return p, u.String()
}

// postgresStaller puts a proxy that can hold every byte between the
// service and Postgres.
func postgresStaller(t *testing.T) staller {
	p, dbURL := postgresProxy(t)
	return staller{
		edit:    func(c *Config) { c.DatabaseURL = dbURL },
		stall:   func(*testing.T) { p.Stall() },
		unstall: func(*testing.T) { p.Resume() },
	}
}

// A history store that stops answering costs a chat request the history
// deadline: 503 unavailable (an error event on a started stream), nothing
// written, and the service answers again once the store does.
func TestServeHistoryDeadline(t *testing.T) {
	stores := map[string]func(t *testing.T) staller{
		"sqlite":   func(*testing.T) staller { return sqliteStaller() },
		"postgres": postgresStaller,
	}
	for name, mk := range stores {
		t.Run(name, func(t *testing.T) {
			st := mk(t)
			base, _ := startService(t, func(c *Config) {
				c.HistoryTimeout = 300 * time.Millisecond
				st.edit(c)
			})
			sid := uuid.NewString()
			body := fmt.Sprintf(`{"question":"How does a LiDAR measure distance?","session_id":%q}`, sid)

			st.stall(t)
			// Without a deadline the request would wait for the store; let
			// it answer again in the end so that such a failure is reported.
			safety := time.AfterFunc(15*time.Second, func() { st.unstall(t) })
			resp, data := postJSON(t, base+"/api/chat", body)
			var e struct{ Error, Message string }
			json.Unmarshal(data, &e)
			if resp.StatusCode != 503 || e.Error != "unavailable" || e.Message == "" {
				t.Errorf("chat with a stalled history: %d %s, want 503 unavailable", resp.StatusCode, data)
			}
			sresp, err := http.Post(base+"/api/chat/stream", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			events, _ := io.ReadAll(sresp.Body)
			sresp.Body.Close()
			// A store that does not answer the session-cap check, made
			// before the stream starts, gives a plain 503; one that stalls
			// only writes gives an error event.
			plain := sresp.StatusCode == 503 && strings.HasPrefix(string(events), `{"error":"unavailable"`)
			if !plain && (!strings.Contains(string(events), "event: error\ndata: {\"error\":\"unavailable\"") || strings.Contains(string(events), "event: done")) {
				t.Errorf("stream with a stalled history:\n%s", events)
			}
			safety.Stop()
			st.unstall(t)

			// The store may take a moment to answer again once it resumes
			// (a loaded machine reconnects slowly), which the short deadline
			// reports as 503: ask until it answers.
			var mresp *http.Response
			for try := 0; ; try++ {
				var err error
				mresp, err = http.Get(base + "/api/chat/sessions/" + sid + "/messages")
				if err != nil {
					t.Fatal(err)
				}
				mresp.Body.Close()
				if mresp.StatusCode != http.StatusServiceUnavailable || try == 50 {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if mresp.StatusCode != 404 {
				t.Errorf("after the stall the session exists (status %d): something was written", mresp.StatusCode)
			}
			resp, data = postJSON(t, base+"/api/chat", body)
			for try := 0; resp.StatusCode == http.StatusServiceUnavailable && try < 50; try++ {
				time.Sleep(100 * time.Millisecond)
				resp, data = postJSON(t, base+"/api/chat", body)
			}
			if resp.StatusCode != 200 {
				t.Errorf("after the stall: %d %s", resp.StatusCode, data)
			}
		})
	}
}

// A Postgres that refuses connections (down, restarting) is as
// unavailable as a stalled one: 503 with Retry-After on every route that
// needs the history, and the service answers again once Postgres does.
func TestServeHistoryRefused(t *testing.T) {
	p, dbURL := postgresProxy(t)
	base, _ := startService(t, func(c *Config) { c.DatabaseURL = dbURL })
	sid := uuid.NewString()
	body := fmt.Sprintf(`{"question":"How does a LiDAR measure distance?","session_id":%q}`, sid)
	if resp, data := postJSON(t, base+"/api/chat", body); resp.StatusCode != 200 {
		t.Fatalf("before the refusal: %d %s", resp.StatusCode, data)
	}

	if err := p.Refuse(); err != nil {
		t.Fatal(err)
	}
	check := func(what string, resp *http.Response, data []byte) {
		t.Helper()
		var e struct{ Error, Message string }
		json.Unmarshal(data, &e)
		if resp.StatusCode != 503 || e.Error != "unavailable" || e.Message == "" || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s with Postgres refusing connections: %d Retry-After %q %s, want 503 unavailable with Retry-After",
				what, resp.StatusCode, resp.Header.Get("Retry-After"), data)
		}
	}
	resp, data := postJSON(t, base+"/api/chat", body)
	check("chat", resp, data)
	mresp, err := http.Get(base + "/api/chat/sessions/" + sid + "/messages")
	if err != nil {
		t.Fatal(err)
	}
	mdata, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	check("messages", mresp, mdata)

	if err := p.Reopen(); err != nil {
		t.Fatal(err)
	}
	resp, data = postJSON(t, base+"/api/chat", body)
	for try := 0; resp.StatusCode == http.StatusServiceUnavailable && try < 50; try++ {
		time.Sleep(100 * time.Millisecond)
		resp, data = postJSON(t, base+"/api/chat", body)
	}
	if resp.StatusCode != 200 {
		t.Errorf("once Postgres accepts connections again: %d %s", resp.StatusCode, data)
	}
}
