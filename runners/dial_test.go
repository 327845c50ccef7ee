package runners

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestDialsTakeTurns: many more workers than dialling turns all connect to
// a loopback listener, each connect slowed a little in the dialer's
// Control hook (inside the dial): at no time are more than the turns
// connecting, and every one gets its connection.
func TestDialsTakeTurns(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var now, peak atomic.Int64
	d := &net.Dialer{Timeout: 10 * time.Second, Control: func(string, string, syscall.RawConn) error {
		n := now.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(2 * time.Millisecond)
		now.Add(-1)
		return nil
	}}
	workers := 3 * cap(dialing)
	var wg sync.WaitGroup
	var failed atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range workers {
		wg.Go(func() {
			conn, err := Dial(ctx, d, "tcp", ln.Addr().String())
			if err != nil {
				failed.Add(1)
				return
			}
			conn.Close()
		})
	}
	wg.Wait()
	if p := peak.Load(); p > int64(cap(dialing)) || p < 2 || failed.Load() != 0 {
		t.Errorf("%d workers: at most %d connecting at once (turns: %d), %d failed", workers, p, cap(dialing), failed.Load())
	}
}

// TestDialWaitEndsWithItsContext: with every turn taken, a worker waiting
// for one returns its context's error when the context ends. (Not
// parallel: it holds the process's turns.)
func TestDialWaitEndsWithItsContext(t *testing.T) {
	for range cap(dialing) {
		dialing <- struct{}{}
	}
	defer func() {
		for range cap(dialing) {
			<-dialing
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := Dial(ctx, &net.Dialer{}, "tcp", "127.0.0.1:1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting for a turn past its context: %v, want %v", err, context.DeadlineExceeded)
	}
}
