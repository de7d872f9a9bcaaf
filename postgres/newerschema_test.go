package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// A database that a newer binary migrated (a migration this one does not
// know is listed) is refused at Open and OpenReader, with a message
// naming the migration, instead of served until the first write fails.
func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	dsn := testURL(t)
	h, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := exec(t, h, "INSERT INTO schema_migrations (version) VALUES ('9999_from_the_future')"); err != nil {
		t.Fatal(err)
	}
	h.Close()
	for name, open := range map[string]func() (*History, error){
		"Open":       func() (*History, error) { return Open(ctx, dsn) },
		"OpenReader": func() (*History, error) { return OpenReader(ctx, dsn, "book") },
	} {
		t.Run(name, func(t *testing.T) {
			h, err := open()
			if err == nil {
				h.Close()
			}
			if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "9999_from_the_future") {
				t.Fatalf("%s = %v, want ErrNewerSchema naming the migration", name, err)
			}
		})
	}
}
