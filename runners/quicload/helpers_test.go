package quicload

import (
	"context"
	"crypto/tls"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/demo"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testRec is a recorder that keeps what it is given.
type testRec struct{ runnertest.Recorder }

func newTestRec() *testRec { return &testRec{} }

func (r *testRec) extra(name string) []time.Duration { return r.Extras()[name] }

func (r *testRec) count(name string) int64 { return r.Counters()[name] }

// startDemo starts the demo QUIC stream server on loopback.
func startDemo(t testing.TB) (*demo.QUICServer, *tls.Config) {
	t.Helper()
	conf, err := demo.SelfSignedTLS()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := demo.ServeQUIC(context.Background(), "127.0.0.1:0", conf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, conf
}

// prepared builds and prepares a runner, closed at cleanup.
func prepared(t testing.TB, s Spec) *Runner {
	t.Helper()
	r, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	})
	if err := r.Prepare(context.Background(), &runners.StepEnv{}); err != nil {
		t.Fatal(err)
	}
	return r
}

// result is what a run of workers produced.
type result struct {
	kinds map[string]int
	total time.Duration // sum of operation times
	ops   int
}

// runOps runs perWorker operations on each of workers workers at once.
func runOps(t testing.TB, r *Runner, rec recorder, workers, perWorker int) result {
	t.Helper()
	var mu sync.Mutex
	res := result{kinds: map[string]int{}}
	var wg sync.WaitGroup
	for i := range workers {
		w := r.newWorker(i, rec)
		wg.Go(func() {
			for range perWorker {
				start := time.Now()
				out := w.Do(context.Background())
				d := time.Since(start)
				mu.Lock()
				res.kinds[out.Err]++
				res.total += d
				res.ops++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return res
}

func (r result) mean() time.Duration { return r.total / time.Duration(max(1, r.ops)) }

func durationOf(d time.Duration) plan.Duration { return plan.Duration{Duration: d} }
