package postgres

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// errClosed is returned by a closed pool.
var errClosed = errors.New("postgres history is closed")

// pool is a small connection pool over pgx.Conn: at most cap(slots)
// connections exist, idle ones are reused, and a connection that is left
// in a transaction, busy or closed is discarded on release.
//
// It stands in for pgxpool, whose dependency github.com/jackc/puddle/v2
// is not in this module's go.sum.
type pool struct {
	config *pgx.ConnConfig
	slots  chan struct{}

	mu     sync.Mutex
	idle   []*pgx.Conn
	closed bool
}

func newPool(config *pgx.ConnConfig, max int) *pool {
	return &pool{config: config, slots: make(chan struct{}, max)}
}

// acquire returns an idle connection or a new one, waiting for a slot.
func (p *pool) acquire(ctx context.Context) (*pgx.Conn, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			<-p.slots
			return nil, errClosed
		}
		var c *pgx.Conn
		if n := len(p.idle); n > 0 {
			c = p.idle[n-1]
			p.idle = p.idle[:n-1]
		}
		p.mu.Unlock()
		if c == nil {
			break
		}
		if !c.IsClosed() {
			return c, nil
		}
	}
	c, err := pgx.ConnectConfig(ctx, p.config)
	if err != nil {
		<-p.slots
		return nil, err
	}
	return c, nil
}

// release returns c to the pool, or closes it when it is not reusable.
func (p *pool) release(c *pgx.Conn) {
	defer func() { <-p.slots }()
	reusable := !c.IsClosed() && !c.PgConn().IsBusy() && c.PgConn().TxStatus() == 'I'
	p.mu.Lock()
	if reusable && !p.closed {
		p.idle = append(p.idle, c)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	closeConn(c)
}

// with runs fn on a pooled connection.
func (p *pool) with(ctx context.Context, fn func(c *pgx.Conn) error) error {
	c, err := p.acquire(ctx)
	if err != nil {
		return err
	}
	defer p.release(c)
	return fn(c)
}

// close closes the idle connections; those in use close on release.
func (p *pool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.closed = true
	p.mu.Unlock()
	for _, c := range idle {
		closeConn(c)
	}
}

func closeConn(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.Close(ctx)
}
