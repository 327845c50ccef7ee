// Package pgtest gives tests a real throwaway Postgres: one embedded
// cluster per test binary, started on first use and stopped when the tests
// end, with a fresh database per test.
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
//
//	func TestX(t *testing.T) {
//		dsn := pgtest.NewDatabase(t) // skips when no Postgres is installed
//		…
//	}
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/watch"
)

var (
	mu       sync.Mutex
	shared   *pgload.Embedded
	startErr error
	dbSeq    atomic.Int64
)

// Run runs the tests and then stops the shared cluster, also when the
// binary is interrupted (SIGINT, SIGTERM). It returns m.Run's code.
func Run(m *testing.M) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			_ = Stop()
			fmt.Fprintf(os.Stderr, "pgtest: %v: embedded postgres stopped\n", sig)
			os.Exit(2)
		case <-done:
		}
	}()
	code := m.Run()
	signal.Stop(sigs)
	close(done)
	if err := Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Stop stops the shared cluster, if one was started.
func Stop() error {
	mu.Lock()
	e := shared
	shared = nil
	mu.Unlock()
	if e == nil {
		return nil
	}
	return e.Stop()
}

// Cluster returns the shared cluster, starting it on first use. It skips
// the test only when no Postgres binaries are installed at all; any other
// failure to start fails the test.
func Cluster(t testing.TB) *pgload.Embedded {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if shared == nil && startErr == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		shared, startErr = pgload.StartEmbedded(ctx, pgload.EmbeddedOptions{})
		cancel()
	}
	switch {
	case errors.Is(startErr, pgload.ErrNoPostgres), errors.Is(startErr, watch.ErrUnsupported):
		t.Skipf("no Postgres to test against: %v", startErr)
	case startErr != nil:
		t.Fatalf("starting the test postgres: %v", startErr)
	}
	return shared
}

// NewDatabase creates an empty database in the shared cluster for this test
// and returns its DSN; the database is dropped when the test ends.
func NewDatabase(t testing.TB) string {
	t.Helper()
	e := Cluster(t)
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbSeq.Add(1))
	admin(t, e, "CREATE DATABASE "+name+" TEMPLATE template0")
	t.Cleanup(func() { admin(t, e, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
	return e.DSNFor(name)
}

// admin runs one statement on the cluster's postgres database.
func admin(t testing.TB, e *pgload.Embedded, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, e.DSN())
	if err != nil {
		t.Fatalf("connecting to the test postgres: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
