package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/sqlite"
)

func TestHistoryRetentionFlag(t *testing.T) {
	tests := []struct {
		args    []string
		env     string
		want    time.Duration
		wantErr bool
	}{
		{args: nil, want: 0},
		{args: []string{"--history-retention", "90d"}, want: 90 * 24 * time.Hour},
		{args: []string{"--history-retention", "36h"}, want: 36 * time.Hour},
		{args: []string{"--history-retention", "0"}, want: 0},
		{env: "30d", want: 30 * 24 * time.Hour},
		{args: []string{"--history-retention", "7d"}, env: "30d", want: 7 * 24 * time.Hour},
		{args: []string{"--history-retention", "-1d"}, wantErr: true},
		{args: []string{"--history-retention", "1.5d"}, wantErr: true},
		{args: []string{"--history-retention", "soon"}, wantErr: true},
		{env: "ninety days", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.env+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("TEXTBOOK_RAG_HISTORY_RETENTION", tt.env)
			}
			cfg := DefaultConfig()
			f := newFlags("serve", &cfg, io.Discard)
			f.service()
			err := f.parse(tt.args)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parse: %v, want error %v", err, tt.wantErr)
			}
			if err == nil && cfg.HistoryRetention != tt.want {
				t.Errorf("retention %s, want %s", cfg.HistoryRetention, tt.want)
			}
		})
	}
}

// keepHistory prunes at start: a session idle for longer than the
// retention is gone without waiting for the hourly round.
func TestKeepHistoryPrunesAtStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	old, recent := uuid.NewString(), uuid.NewString()
	for sid, age := range map[string]time.Duration{old: 100 * 24 * time.Hour, recent: time.Hour} {
		at := time.Now().Add(-age)
		q := rag.Message{Role: "user", Content: "q", CreatedAt: at}
		a := rag.Message{Role: "assistant", Content: "a", CreatedAt: at}
		if err := h.AppendExchange(ctx, sid, q, a); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() {
		keepHistory(ctx, h, 90*24*time.Hour, slog.New(slog.DiscardHandler))
		close(done)
	}()
	giveUp := time.After(30 * time.Second)
	for {
		if _, err := h.Messages(ctx, old); rag.ErrorCode(err) == rag.ENOTFOUND {
			break
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-giveUp:
			t.Fatal("the old session was not deleted")
		}
	}
	if msgs, err := h.Messages(ctx, recent); err != nil || len(msgs) != 2 {
		t.Errorf("the recent session: %d messages, %v", len(msgs), err)
	}
	cancel()
	<-done
}
