package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/internal/smalldisk"
)

// A full disk makes writes fail as 503-worthy "unavailable" errors that
// say the disk is full, makes Ping (the health check) fail while nothing
// can be written, and the store writes again as soon as space returns,
// without being reopened.
func TestFullDisk(t *testing.T) {
	ctx := context.Background()
	dir := smalldisk.Mount(t, 4<<20)
	h, err := Open(ctx, filepath.Join(dir, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.AppendExchange(ctx, uuid.NewString(), question("q"), answer("a")); err != nil {
		t.Fatal(err)
	}

	free := smalldisk.Fill(t, dir)
	// SQLite may still have room in pages it already holds: write until
	// it has none.
	var appendErr error
	for i := 0; i < 2000 && appendErr == nil; i++ {
		appendErr = h.AppendExchange(ctx, uuid.NewString(), question(strings.Repeat("q", 2000)), answer("a"))
	}
	if rag.ErrorCode(appendErr) != rag.EUNAVAILABLE || !strings.Contains(rag.ErrorMessage(appendErr), "disk is full") {
		t.Errorf("append on a full disk: %v, want unavailable saying the disk is full", appendErr)
	}
	if err := h.Ping(ctx); rag.ErrorCode(err) != rag.EUNAVAILABLE || !strings.Contains(rag.ErrorMessage(err), "disk is full") {
		t.Errorf("ping on a full disk: %v, want unavailable saying the disk is full", err)
	}

	free()
	if err := h.Ping(ctx); err != nil {
		t.Errorf("ping once space is back: %v", err)
	}
	if err := h.AppendExchange(ctx, uuid.NewString(), question("q"), answer("a")); err != nil {
		t.Errorf("append once space is back: %v", err)
	}
}

// Starting on a full disk says so, not "disk I/O error (4874)", whether
// the history file is new or was there before.
func TestOpenOnFullDisk(t *testing.T) {
	for _, existing := range []bool{false, true} {
		t.Run(map[bool]string{false: "new", true: "existing"}[existing], func(t *testing.T) {
			dir := smalldisk.Mount(t, 1<<20)
			path := filepath.Join(dir, "history.db")
			if existing {
				h, err := Open(context.Background(), path)
				if err != nil {
					t.Fatal(err)
				}
				h.Close()
			}
			smalldisk.Fill(t, dir)
			h, err := Open(context.Background(), path)
			if err == nil {
				h.Close()
			}
			if err == nil || !strings.Contains(err.Error(), "the disk is full") {
				t.Errorf("open on a full disk: %v, want an error saying the disk is full", err)
			}
		})
	}
}
