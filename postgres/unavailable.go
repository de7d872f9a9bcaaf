package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/textbook-rag/rag"
)

// unavailable turns an error that means "Postgres cannot be reached now"
// into an EUNAVAILABLE *rag.Error, which the API answers with 503 and
// Retry-After: a server that refuses connections is as temporary, to a
// reader, as one that stalls; so is the server's disk_full (53100).
// Other errors are returned as they are; deadlines and cancellations too,
// so that callers still see them.
func unavailable(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "53100" {
		return rag.WrapError(rag.EUNAVAILABLE, "The chat history cannot be written: the database server's disk is full.", err)
	}
	if isUnreachable(err) {
		return rag.WrapError(rag.EUNAVAILABLE, "The chat history cannot be reached; please try again shortly.", err)
	}
	return err
}

// isUnreachable reports connection failures: refused or failed connects,
// connections the server or network closed, and the server's own "not
// now" answers (SQLSTATE class 08 connection exception, 53300 too many
// connections, 57P01–57P03 shutting down or starting up).
func isUnreachable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe):
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "53300" ||
			pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	case errors.As(err, &ce), errors.As(err, &ne):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return true
	}
	return pgconn.SafeToRetry(err)
}
