package main

import (
	"io"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestSessionMaxMessagesFlag(t *testing.T) {
	tests := []struct {
		args    []string
		env     string
		want    int
		wantErr bool
	}{
		{args: nil, want: 10_000},
		{args: []string{"--session-max-messages", "200"}, want: 200},
		{args: []string{"--session-max-messages", "0"}, want: 0},
		{env: "50", want: 50},
		{args: []string{"--session-max-messages", "2"}, want: 2},
		{args: []string{"--session-max-messages", "1"}, wantErr: true},
		{args: []string{"--session-max-messages", "-1"}, wantErr: true},
		{env: "many", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.env+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("TEXTBOOK_RAG_SESSION_MAX_MESSAGES", tt.env)
			}
			cfg := DefaultConfig()
			f := newFlags("serve", &cfg, io.Discard)
			f.service()
			err := f.parse(tt.args)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parse: %v, want error %v", err, tt.wantErr)
			}
			if err == nil && cfg.SessionMaxMessages != tt.want {
				t.Errorf("cap %d, want %d", cfg.SessionMaxMessages, tt.want)
			}
		})
	}
}

// TestServeSessionFull: serve wires the cap into the history store: the
// exchange past it is a 409 session_full.
func TestServeSessionFull(t *testing.T) {
	base, _ := startService(t, func(c *Config) { c.SessionMaxMessages = 4 })
	body := `{"question":"What is a good recipe for banana bread?","session_id":"` + uuid.NewString() + `"}`
	for i, want := range []int{200, 200, 409} {
		resp, data := postJSON(t, base+"/api/chat", body)
		if resp.StatusCode != want {
			t.Fatalf("exchange %d: %d %s, want %d", i, resp.StatusCode, data, want)
		}
		if want == 409 && !strings.Contains(string(data), `"error":"session_full"`) {
			t.Errorf("body %s", data)
		}
	}
}
