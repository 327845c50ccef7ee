package sse

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners"
)

// TestShardsKeepTheRamp: the shards' subscribers, each started in the
// ramp period of its global id, start as many in each period as one
// machine would, whatever the batch against the shard count.
func TestShardsKeepTheRamp(t *testing.T) {
	for shards := 1; shards <= 4; shards++ {
		for batch := 0; batch <= 5; batch++ {
			for total := int64(1); total <= 20; total++ {
				want, got := map[int64]int{}, map[int64]int{}
				for g := range total {
					want[rampPeriod(g, batch)]++
				}
				for i := range shards {
					sh := runners.Shard{Index: i, Count: shards}
					for k := range sh.Split(total) {
						got[rampPeriod(sh.Global(k), batch)]++
					}
				}
				for p, n := range want {
					if got[p] != n {
						t.Fatalf("%d shards, ramp %d, %d subscribers: period %d starts %d, one machine %d", shards, batch, total, p, got[p], n)
					}
				}
			}
		}
	}
}

// TestShardDrivesKeepTheRamp: three shards of six subscribers ramped 2
// per 150 ms against one server start the last two 300 ms after the
// first (three periods), not after 150 ms as shards each taking a batch
// of at least one would.
func TestShardDrivesKeepTheRamp(t *testing.T) {
	srv := newDropServer(t, 0, 0) // every stream held
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	hosts := make([]*testHost, 3)
	for i := range hosts {
		hosts[i] = newTestHost()
		r := newRunner(t, Spec{URL: srv.URL, Ramp: "2/150ms"})
		d := &drive{r: r, h: hosts[i], shard: runners.Shard{Index: i, Count: 3}}
		wg.Go(func() { d.run(ctx, 2) })
	}
	waitFor(t, "six subscribers", func() bool {
		n := int64(0)
		for _, h := range hosts {
			n += h.units.Load()
		}
		return n == 6
	})
	cancel()
	wg.Wait()
	_, _, started := srv.requests()
	if len(started) != 6 {
		t.Fatalf("%d connections, want 6", len(started))
	}
	first, last := started[0], started[0]
	for _, s := range started {
		first, last = minTime(first, s), maxTime(last, s)
	}
	if d := last.Sub(first); d < 250*time.Millisecond {
		t.Errorf("the last subscribers started %v after the first, want >= 300ms (the third period)", d)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
