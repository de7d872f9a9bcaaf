package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/textbook-rag/rag"
)

func TestUnavailable(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	tests := []struct {
		name string
		err  error
		want string // the rag error code; "" for nil
	}{
		{"nil", nil, ""},
		{"connection refused", fmt.Errorf("acquire: %w", refused), rag.EUNAVAILABLE},
		{"closed by the server", fmt.Errorf("query: %w", io.ErrUnexpectedEOF), rag.EUNAVAILABLE},
		{"shutting down", &pgconn.PgError{Code: "57P01"}, rag.EUNAVAILABLE},
		{"too many connections", &pgconn.PgError{Code: "53300"}, rag.EUNAVAILABLE},
		{"connection exception", &pgconn.PgError{Code: "08006"}, rag.EUNAVAILABLE},
		{"disk full", &pgconn.PgError{Code: "53100"}, rag.EUNAVAILABLE},
		{"unique violation", &pgconn.PgError{Code: "23505"}, rag.EINTERNAL},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), rag.EINTERNAL},
		{"other", errors.New("boom"), rag.EINTERNAL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := unavailable(tt.err)
			if got := rag.ErrorCode(err); got != tt.want {
				t.Errorf("code = %q, want %q (%v)", got, tt.want, err)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("the cause is lost: %v", err)
			}
		})
	}
}
