package pgload

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// stopWatch ends a worker's statement in flight when the context its
// operations run under ends (the engine's grace for in-flight work is
// over). It watches that context once per step, where pgx would watch it
// for every statement: a context.AfterFunc registered on, and removed
// from, the context all the step's workers share, under its lock, twice
// per statement. The statements themselves run under
// context.Background(), which pgx does not watch.
//
// The stop sets a past deadline on the connection in flight, as pgx's own
// handler does: the blocked read fails, and pgconn closes the connection
// (a pool replaces it). A statement that ended before the deadline hit
// keeps its connection, whose deadline end clears.
type stopWatch struct {
	done <-chan struct{} // the watched context's; only the worker's goroutine sets it
	stop func() bool     // unregisters the watch

	mu    sync.Mutex
	conn  *pgconn.PgConn // the statement's in flight, nil between statements
	fired bool           // the watched context has ended
	gen   uint64         // the watch's; a callback of an earlier one does nothing
}

// begin watches ctx, if it does not already, and marks conn in flight.
// It returns false, marking nothing, when ctx has ended.
func (s *stopWatch) begin(ctx context.Context, conn *pgconn.PgConn) bool {
	if done := ctx.Done(); done != s.done {
		gen := s.close()
		s.done = done
		s.stop = context.AfterFunc(ctx, func() { s.interrupt(gen) })
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fired {
		return false
	}
	s.conn = conn
	return true
}

// interrupt is the callback of watch gen: it stops the statement in flight.
func (s *stopWatch) interrupt(gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen {
		return // a late callback of a watch closed since
	}
	s.fired = true
	if s.conn != nil {
		_ = s.conn.Conn().SetDeadline(time.Now())
	}
}

// end marks that no statement is in flight. It reports whether the watched
// context ended meanwhile: the statement's failure is then a stop.
func (s *stopWatch) end() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.conn
	s.conn = nil
	if s.fired && c != nil && !c.IsClosed() {
		_ = c.Conn().SetDeadline(time.Time{})
	}
	return s.fired
}

// close stops watching; it returns the next watch's generation.
func (s *stopWatch) close() uint64 {
	if s.stop != nil {
		s.stop()
	}
	s.stop, s.done = nil, nil
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	s.fired = false
	return s.gen
}
