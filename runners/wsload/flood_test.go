package wsload

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestSubscriberFloodHoldsEachConnection: 1,000 subscribers (200 under
// the race detector) ramped in 4 batches are all held at once (units and
// the server's subscribed count), broadcasts reach each, and a held idle
// subscriber costs a bounded heap, the server's side of it included.
func TestSubscriberFloodHoldsEachConnection(t *testing.T) {
	n := 1000
	if raceOn {
		n = 200
	}
	s := startServer(t)
	r, env := newDriven(t, fmt.Sprintf(`
version: 1
groups:
  - id: flood
    runner: websocket
    websocket:
      url: ${URL}
      subscribe: {subscribers: %d, ramp: %d/50ms, send: [join]}
    duration: 10s
`, n, n/4), map[string]string{"URL": s.url("/broadcast")})
	base, t0 := heapInUse(), time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := r.Prepare(ctx, env); err != nil {
			t.Error(err)
			return
		}
		if err := r.Drive(ctx, env); err != nil {
			t.Error(err)
		}
	}()
	waitFor(t, 20*time.Second, "the subscribers", func() bool { return s.subscribed() == n && env.PeakUnits() == n })
	held, rampedIn := heapInUse(), time.Since(t0)
	delivered := s.broadcast("hello") + s.broadcast("again")
	read := int64(0)
	waitFor(t, 10*time.Second, "the broadcasts read", func() bool {
		c, _, _ := stepCounts(env)
		read += c[CounterMessagesIn]
		return read == delivered
	})
	cancel()
	<-done
	perSub := (int64(held) - int64(base)) / int64(n)
	t.Logf("%d subscribers held after %v: heap %d KiB before, %d KiB held, %d B per subscriber (client and server); %d messages delivered", n, rampedIn.Round(time.Millisecond), base>>10, held>>10, perSub, delivered)
	if delivered != int64(2*n) {
		t.Errorf("delivered %d, want %d", delivered, 2*n)
	}
	if perSub > 96<<10 {
		t.Errorf("%d B of heap per held subscriber (client and server)", perSub)
	}
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
