package quicload

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/benchtui/benchtui/runners/demo"
)

const benchWorkers = 16

// BenchmarkStream runs b.N FETCH operations with 16 workers against the
// demo server through benchtui's workers and, interleaved with them, the
// same through a bare quic-go loop, and reports both rates and their ratio
// (benchtui/bare; 1.0 means no overhead):
//
//	go test -run '^$' -bench Stream -benchtime 4000x ./runners/quicload/
func BenchmarkStream(b *testing.B) {
	for _, policy := range []string{ConnPooled, ConnFresh} {
		b.Run(policy, func(b *testing.B) {
			srv, _ := startDemo(b)
			r := prepared(b, streamSpec(srv.Addr(), policy, "FETCH /bench.md"))
			bare := newBareClient(b, srv.Addr(), policy == ConnFresh)
			b.ResetTimer()
			ours, theirs := interleave(b, b.N, func(i int) func() error {
				w := r.newWorker(i, nopRecorder{})
				return func() error {
					if out := w.Do(context.Background()); out.Err != "" {
						return errors.New(out.Err)
					}
					return nil
				}
			}, func(int) func() error { return bare.fetch })
			b.StopTimer()
			b.ReportMetric(float64(b.N)/ours.Seconds(), "benchtui_ops/s")
			b.ReportMetric(float64(b.N)/theirs.Seconds(), "bare_ops/s")
			b.ReportMetric(theirs.Seconds()/ours.Seconds(), "ratio")
		})
	}
}

// interleave runs n operations of each kind in alternating rounds, so
// that drift on the shared server (which slows down as closed connections
// pile up in fresh mode) is spread evenly, and returns the time each took.
func interleave(b *testing.B, n int, ours, bare func(worker int) func() error) (tOurs, tBare time.Duration) {
	const rounds = 8
	for i := range rounds {
		k := n/rounds + min(1, max(0, n%rounds-i)) // spread the remainder
		if i%2 == 0 {
			tOurs += runParallel(b, k, ours)
			tBare += runParallel(b, k, bare)
		} else {
			tBare += runParallel(b, k, bare)
			tOurs += runParallel(b, k, ours)
		}
	}
	return tOurs, tBare
}

// runParallel runs n operations on benchWorkers goroutines and returns how
// long they took.
func runParallel(b *testing.B, n int, newOp func(worker int) func() error) time.Duration {
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	ops := make([]func() error, benchWorkers)
	for i := range ops {
		ops[i] = newOp(i)
	}
	start := time.Now()
	for _, op := range ops {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if err := op(); err != nil {
					failed.Store(&err)
					return
				}
			}
		})
	}
	wg.Wait()
	d := time.Since(start)
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	return d
}

// bareClient is the same work written directly against quic-go: one
// shared connection, or a new one per operation on a shared socket.
type bareClient struct {
	tr    *quic.Transport
	addr  net.Addr
	tls   *tls.Config
	conn  *quic.Conn
	fresh bool
}

func newBareClient(b *testing.B, addr net.Addr, fresh bool) *bareClient {
	pc, err := net.ListenUDP("udp", nil)
	if err != nil {
		b.Fatal(err)
	}
	c := &bareClient{
		tr: &quic.Transport{Conn: pc}, addr: addr, fresh: fresh,
		tls: &tls.Config{InsecureSkipVerify: true, NextProtos: []string{demo.QUICALPN}},
	}
	b.Cleanup(func() {
		if c.conn != nil {
			_ = c.conn.CloseWithError(0, "")
		}
		_ = c.tr.Close()
		_ = pc.Close()
	})
	if !fresh {
		if c.conn, err = c.tr.Dial(context.Background(), addr, c.tls, nil); err != nil {
			b.Fatal(err)
		}
	}
	return c
}

func (c *bareClient) fetch() error {
	ctx := context.Background()
	conn := c.conn
	if c.fresh {
		var err error
		if conn, err = c.tr.Dial(ctx, c.addr, c.tls, nil); err != nil {
			return fmt.Errorf("dial: %w", err)
		}
		defer func() { _ = conn.CloseWithError(0, "") }()
	}
	str, err := conn.OpenStreamSync(ctx)
	if err != nil {
		return fmt.Errorf("open stream: %w", err)
	}
	if _, err := io.WriteString(str, "FETCH /bench.md"); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err := str.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	if _, err := io.Copy(io.Discard, str); err != nil {
		return fmt.Errorf("read: %w", err)
	}
	return nil
}
