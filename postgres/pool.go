package postgres

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// errClosed is returned after Close.
var errClosed = errors.New("postgres history is closed")

// pool adapts a pgxpool.Pool to the "borrow a connection for one job"
// shape the history code uses (migrations need one session for the
// advisory lock and its transactions).
type pool struct {
	p        *pgxpool.Pool
	isClosed atomic.Bool
}

func (p *pool) with(ctx context.Context, fn func(c *pgx.Conn) error) error {
	if p.isClosed.Load() {
		return errClosed
	}
	conn, err := p.p.Acquire(ctx)
	if err != nil {
		return unavailable(err)
	}
	defer conn.Release()
	return unavailable(fn(conn.Conn()))
}

func (p *pool) close() {
	if p.isClosed.CompareAndSwap(false, true) {
		p.p.Close()
	}
}
