package pgload

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchtui/benchtui/runners/plan"
)

// The values of `postgres.connection`.
const (
	// ConnectionPool (the default): the workers share a pool of `pool`
	// connections, each statement on one acquired for it.
	ConnectionPool = "pool"
	// ConnectionPerWorker: each worker has a connection of its own,
	// opened before the step's clock starts, and no pool stands between
	// its statements and the connection.
	ConnectionPerWorker = "per-worker"
)

// connectTimeout bounds opening a worker's connection outside Prepare.
const connectTimeout = 30 * time.Second

// workerConns are the connections of `connection: per-worker`: opened
// and warmed in Prepare, one per worker, handed out by NewWorker and given
// back by the worker's Close, so that the steps of a sweep reuse them.
type workerConns struct {
	cfg *pgx.ConnConfig
	dsn string // for messages

	mu   sync.Mutex
	idle []*pgx.Conn
}

// newWorkerConns parses dsn for connections that cache prepared
// statements, as the pool's do.
func newWorkerConns(dsn string) (*workerConns, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parsing the dsn %s: %w", plan.RedactURLs(dsn), redactErr(err, dsn))
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	return &workerConns{cfg: cfg, dsn: dsn}, nil
}

// fill leaves exactly n idle connections, opening the missing ones at
// once (concurrently) and closing any beyond n.
func (c *workerConns) fill(ctx context.Context, n int) error {
	c.mu.Lock()
	have := len(c.idle)
	extra := c.idle[min(n, have):]
	c.idle = c.idle[:min(n, have)]
	c.mu.Unlock()
	closeAll(extra)
	missing := max(n-have, 0)
	connect := func() (*pgx.Conn, error) { return c.connect(ctx) }
	if err := openAll(missing, connect, c.give); err != nil {
		return fmt.Errorf("opening %d connections to %s: %w", missing, plan.RedactURLs(c.dsn), err)
	}
	return nil
}

func (c *workerConns) connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, c.cfg)
	if err != nil {
		return nil, redactErr(err, c.dsn)
	}
	return conn, nil
}

// take hands out an idle connection, or opens one when none is left.
func (c *workerConns) take() (*pgx.Conn, error) {
	c.mu.Lock()
	if n := len(c.idle); n > 0 {
		conn := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		return conn, nil
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	conn, err := c.connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", plan.RedactURLs(c.dsn), err)
	}
	return conn, nil
}

// give takes a worker's connection back. One that is closed, or not idle
// outside a transaction (as a pool would judge it), is closed instead.
func (c *workerConns) give(conn *pgx.Conn) {
	pc := conn.PgConn()
	if conn.IsClosed() || pc.IsBusy() || pc.TxStatus() != 'I' {
		closeAll([]*pgx.Conn{conn})
		return
	}
	c.mu.Lock()
	c.idle = append(c.idle, conn)
	c.mu.Unlock()
}

// close closes the idle connections.
func (c *workerConns) close() {
	c.mu.Lock()
	idle := c.idle
	c.idle = nil
	c.mu.Unlock()
	closeAll(idle)
}

func closeAll(conns []*pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	for _, conn := range conns {
		_ = conn.Close(ctx)
	}
}
