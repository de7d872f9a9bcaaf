package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag/internal/smalldisk"
)

// On a full disk (the data directory on a small tmpfs, then filled) the
// health check says the history cannot be written, chats are 503 with
// Retry-After rather than 500, and once space is freed both recover
// without a restart.
func TestServeFullDisk(t *testing.T) {
	data := smalldisk.Mount(t, 32<<20)
	base, _ := startService(t, func(c *Config) { c.Data = data })
	health := func() (int, string) {
		resp, err := http.Get(base + "/health")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	ask := func() (*http.Response, []byte) {
		body := fmt.Sprintf(`{"question":"What does an IMU measure?","session_id":%q}`, uuid.NewString())
		return postJSON(t, base+"/api/chat", body)
	}
	if code, body := health(); code != 200 {
		t.Fatalf("health before: %d %s", code, body)
	}

	free := smalldisk.Fill(t, data)
	// The store may have room left in pages it already holds: ask until a
	// write fails.
	resp, data1 := ask()
	for i := 0; i < 500 && resp.StatusCode == 200; i++ {
		resp, data1 = ask()
	}
	var e struct{ Error, Message string }
	json.Unmarshal(data1, &e)
	if resp.StatusCode != 503 || e.Error != "unavailable" || !strings.Contains(e.Message, "disk is full") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("chat on a full disk: %d %s, want 503 unavailable saying the disk is full, with Retry-After", resp.StatusCode, data1)
	}
	if code, body := health(); code != 503 || !strings.Contains(body, "disk is full") {
		t.Errorf("health on a full disk: %d %s, want 503 saying the disk is full", code, body)
	}

	free()
	if code, body := health(); code != 200 {
		t.Errorf("health once space is back: %d %s", code, body)
	}
	if resp, body := ask(); resp.StatusCode != 200 {
		t.Errorf("chat once space is back: %d %s", resp.StatusCode, body)
	}
}
