package wsload

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/demo"
	"github.com/benchtui/benchtui/runners/runnertest"
)

const benchWorkers = 16

// BenchmarkEcho runs b.N echo round trips of a 64-byte text message on 16
// connections against the demo's /ws/echo, through benchtui's workers
// and, in alternating rounds, through a bare coder/websocket loop, and
// reports both rates and their ratio (benchtui/bare; 1.0: no overhead).
// The bare loop's operations have no deadline (bare) or, as benchtui's,
// a context with a timeout (bare-timeout: coder/websocket then arms a
// timer per frame read and written):
//
//	go test -run '^$' -bench Echo -benchtime 100000x -count 3 ./runners/wsload/
func BenchmarkEcho(b *testing.B) {
	for _, timeout := range []bool{false, true} {
		name := map[bool]string{false: "bare", true: "bare-timeout"}[timeout]
		b.Run(name, func(b *testing.B) {
			srv := httptest.NewServer(demo.NewHandler())
			defer srv.Close()
			url := "ws://" + srv.Listener.Addr().String() + "/ws/echo"
			ours, bare := benchOurs(b, url), benchBare(b, url, timeout)
			var tOurs, tBare time.Duration
			b.ResetTimer()
			const rounds = 8
			for i := range rounds {
				n := b.N/rounds + min(1, max(0, b.N%rounds-i))
				if i%2 == 0 {
					tOurs += runRound(b, n, ours)
					tBare += runRound(b, n, bare)
				} else {
					tBare += runRound(b, n, bare)
					tOurs += runRound(b, n, ours)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/tOurs.Seconds(), "benchtui_ops/s")
			b.ReportMetric(float64(b.N)/tBare.Seconds(), "bare_ops/s")
			b.ReportMetric(tBare.Seconds()/tOurs.Seconds(), "ratio")
		})
	}
}

const benchMessage = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// benchOurs are benchtui's workers, each on its own connection.
func benchOurs(b *testing.B, url string) []func() error {
	p := runnertest.ParsePlan(b, testRegistry, `
version: 1
groups:
  - id: bench
    runner: websocket
    websocket: {url: "${URL}", messages: [{text: "`+benchMessage+`"}]}
    load: {concurrency: 16}
    duration: 1s
`, map[string]string{"URL": url})
	g := p.Groups[0]
	r, err := newKind(g, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := r.Prepare(context.Background(), runners.NewStepEnv(g, g.Load, 1)); err != nil {
		b.Fatal(err)
	}
	ops := make([]func() error, benchWorkers)
	for i := range ops {
		w, _ := r.NewWorker(i, runners.NewRecorder())
		b.Cleanup(func() { _ = w.Close() })
		ops[i] = func() error {
			if out := w.Do(context.Background()); out.Err != "" {
				return errors.New(out.Err + ": " + out.Detail)
			}
			return nil
		}
	}
	b.Cleanup(func() { _ = r.Close() })
	return ops
}

// benchBare are plain coder/websocket connections, each a write and a
// read per operation, within a timeout or none.
func benchBare(b *testing.B, url string, timeout bool) []func() error {
	ops := make([]func() error, benchWorkers)
	for i := range ops {
		c, _, err := websocket.Dial(context.Background(), url, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = c.CloseNow() })
		msg := []byte(benchMessage)
		ops[i] = func() error {
			ctx := context.Background()
			if timeout {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, defaultTimeout)
				defer cancel()
			}
			if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
				return err
			}
			_, _, err := c.Read(ctx)
			return err
		}
	}
	return ops
}

// runRound runs n operations over the workers' ops, one goroutine each,
// and returns how long they took.
func runRound(b *testing.B, n int, ops []func() error) time.Duration {
	var wg sync.WaitGroup
	start := time.Now()
	for i, op := range ops {
		k := n/len(ops) + min(1, max(0, n%len(ops)-i))
		wg.Go(func() {
			for range k {
				if err := op(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}
