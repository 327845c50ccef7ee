package loop

import (
	"math"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// TestDropsAreCountedNotLooped: a dispatcher a million seconds behind a
// rate of a million a second drops its 10^12 due arrivals in one count:
// no pass, allocation or time per arrival (a loop over them would take
// hours).
func TestDropsAreCountedNotLooped(t *testing.T) {
	env := runners.NewStepEnv(&plan.Group{ID: "g"}, plan.Load{Rate: plan.MaxRate, MaxInFlight: 1}, 1)
	now := time.Now()
	d := &dispatcher{env: env, sched: Schedule{Start: now.Add(-1e6 * time.Second), Rate: env.Load.Rate}, limit: math.MaxInt64}
	began := time.Now()
	allocs := testing.AllocsPerRun(1, func() {
		d.next = 0
		d.dropBefore(now)
	})
	took := time.Since(began)
	if want := int64(1e12); d.next < want-1 || d.next > want {
		t.Errorf("next arrival %d, want the 10^12 due before now dropped", d.next)
	}
	if allocs > 2 || took > 10*time.Second {
		t.Errorf("dropping 10^12 arrivals: %.0f allocations, %v", allocs, took)
	}
	if iv := env.Recorder(0).Swap(artifacts.NewHistogram(), artifacts.NewHistogram()); iv.Dropped < 1e12-1 {
		t.Errorf("recorded %d dropped, want 10^12", iv.Dropped)
	}
}

// TestUnsentArrivalsDroppedUpToTheStop: a dispatcher that sees the stop
// late (here 3 s into a schedule of 1000/s, having sent 5) drops the
// arrivals due before the load was told to stop (the gate's End, 2 s in),
// not those due after it.
func TestUnsentArrivalsDroppedUpToTheStop(t *testing.T) {
	t.Parallel()
	env := runners.NewStepEnv(&plan.Group{ID: "g"}, plan.Load{Rate: 1000, MaxInFlight: 10}, 1)
	start := time.Now().Add(-3 * time.Second)
	env.Gate().End(start.Add(2*time.Second + time.Microsecond))
	env.Gate().End(start.Add(3 * time.Second)) // only the first stop counts
	d := &dispatcher{env: env, sched: Schedule{Start: start, Rate: env.Load.Rate}, next: 5, limit: math.MaxInt64}
	d.dropUnsent()
	iv := env.Recorder(0).Swap(artifacts.NewHistogram(), artifacts.NewHistogram())
	if d.next != 2001 || iv.Dropped != 1996 {
		t.Errorf("next %d, dropped %d; want arrivals 5 to 2000 (due by 2s) dropped", d.next, iv.Dropped)
	}
}
