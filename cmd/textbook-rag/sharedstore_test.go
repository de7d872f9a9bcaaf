package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/textbook-rag/rag/postgres/pgtest"
)

// smallBook writes a one-page book about topic and returns its folder.
func smallBook(t *testing.T, topic, text string) string {
	t.Helper()
	docs := t.TempDir()
	page := fmt.Sprintf("# %s\n\n## About %s\n\n%s\n", topic, topic, text)
	if err := os.WriteFile(filepath.Join(docs, "intro.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	return docs
}

// Two courses served at once from one Postgres database, under concurrent
// chats, never see each other: a session of one is not found by the
// other, and each course's report shows only its own questions.
func TestTwoBooksOnePostgres(t *testing.T) {
	dbURL := pgtest.SchemaURL(t)
	data := t.TempDir()
	books := map[string]string{
		"gears":  smallBook(t, "Gears", "A gear is a toothed wheel that turns another gear and passes on its motion."),
		"spores": smallBook(t, "Spores", "A spore is a single cell from which a fungus grows when it lands somewhere damp."),
	}
	base := map[string]string{}
	for name, docs := range books {
		b, _ := startService(t, func(c *Config) { c.Docs, c.Data, c.DatabaseURL = docs, data, dbURL })
		base[name] = b
	}
	type session struct{ book, id string }
	var (
		mu       sync.Mutex
		sessions []session
		wg       sync.WaitGroup
	)
	for name := range books {
		for w := range 4 {
			wg.Go(func() {
				for i := range 5 {
					q := fmt.Sprintf("What does the %s book say, question %d-%d?", name, w, i)
					res, body := postJSON(t, base[name]+"/api/chat", map[string]string{"question": q})
					if res.StatusCode != 200 {
						t.Errorf("%s: %d %s", name, res.StatusCode, body)
						return
					}
					mu.Lock()
					sessions = append(sessions, session{name, decodeChat(t, body).SessionID})
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	crossing := 0
	for _, s := range sessions {
		for name, b := range base {
			res, err := http.Get(b + "/api/chat/sessions/" + s.id + "/messages")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			want := 200
			if name != s.book {
				want = 404
			}
			if res.StatusCode != want {
				crossing++
				t.Errorf("session %s of %s read from %s: %d, want %d", s.id, s.book, name, res.StatusCode, want)
			}
		}
	}
	for name, docs := range books {
		code, out, errOut := runCmd(t, "report", "--data", data, "--docs", docs, "--database-url", dbURL, "--json")
		if code != 0 {
			t.Fatalf("report %s: %s", name, errOut)
		}
		var r struct {
			Questions int `json:"questions"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		for other := range books {
			if other != name && strings.Contains(out, "the "+other+" book") {
				crossing++
				t.Errorf("%s's report shows %s's questions", name, other)
			}
		}
		if !strings.Contains(out, "the "+name+" book") {
			t.Errorf("%s's report lacks its own questions:\n%.400s", name, out)
		}
	}
	t.Logf("%d sessions over 2 books on one database: %d crossing", len(sessions), crossing)
}

// report writes nothing, Postgres included: against a database without
// the history's schema it says so and exits non-zero, creating no table.
func TestReportNeverMigrates(t *testing.T) {
	dbURL := pgtest.SchemaURL(t)
	data := t.TempDir()
	if code, _, errOut := runCmd(t, "ingest", "--data", data); code != 0 {
		t.Fatal(errOut)
	}
	code, _, errOut := runCmd(t, "report", "--data", data, "--database-url", dbURL)
	if code == 0 || !strings.Contains(errOut, "holds no chat history") {
		t.Errorf("report on an empty database: exit %d, %q", code, errOut)
	}
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var tables int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()").Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Errorf("report created %d tables", tables)
	}
}

// Each book gets a Qdrant collection of its own unless one is given.
func TestQdrantCollectionPerBook(t *testing.T) {
	a := smallBook(t, "Gears", "A gear is a toothed wheel.")
	b := smallBook(t, "Spores", "A spore is a single cell.")
	_, ma := startService(t, func(c *Config) { c.Docs = a })
	_, mb := startService(t, func(c *Config) { c.Docs = b })
	ca, cb := ma.Config.QdrantCollection, mb.Config.QdrantCollection
	if ca == cb || !strings.HasPrefix(ca, "textbook_chunks_") || !strings.HasPrefix(cb, "textbook_chunks_") {
		t.Errorf("collections %q and %q, want one per book", ca, cb)
	}
	_, mc := startService(t, func(c *Config) { c.Docs, c.QdrantCollection = a, "shared_by_choice" })
	if got := mc.Config.QdrantCollection; got != "shared_by_choice" {
		t.Errorf("given collection became %q", got)
	}
}
