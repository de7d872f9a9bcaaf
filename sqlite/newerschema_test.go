package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// A history file that a newer binary migrated (a migration this one does
// not know is listed) is refused at Open, with a message naming the
// migration, instead of opened until the first write fails.
func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	h, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.db.ExecContext(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES ('9999_from_the_future', '2030-01-01T00:00:00Z')"); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	h, err = Open(ctx, path)
	if err == nil {
		h.Close()
	}
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "9999_from_the_future") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open = %v, want ErrNewerSchema naming the file and the migration", err)
	}
}
