package main

import (
	"io"
	"strings"
	"testing"
	"time"
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
