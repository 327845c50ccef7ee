package engine

import (
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/plan"
)

// TestOpenLoopBehindCountsEveryDueArrival: at the highest rate a plan may
// ask, with operations that take no time (so that a worker is nearly
// always free and no arrival is dropped for want of one), the dispatcher
// cannot hand out a million arrivals a second: those it could not send
// within loop.DropAfter, and those still unsent when the load stopped, are
// dropped. Requests and drops together account for what the rate
// offered over the measured time, and the step ends on time. (Before, the
// dispatcher fell further and further behind, counting neither.)
func TestOpenLoopBehindCountsEveryDueArrival(t *testing.T) {
	t.Parallel()
	p, g := sleepPlan(t, "{rate: 1000000, max_in_flight: 1000}", "")
	g.Sections["sleep"].(*sleepSpec).Delay = plan.Duration{}
	start := time.Now()
	st := runSession(t, p, g, nil).Steps[0]
	took := time.Since(start)
	due := 1e6 * st.DurationS
	offered := float64(st.Requests + st.Dropped)
	t.Logf("took %v: %d sent, %d dropped, %d late; due %.0f", took, st.Requests, st.Dropped, st.Late, due)
	if offered < 0.5*due || offered > 1.5*due {
		t.Errorf("sent %d + dropped %d = %.0f, want about the %.0f arrivals due in %.3fs", st.Requests, st.Dropped, offered, due, st.DurationS)
	}
	if limit := g.Duration.D() + DefaultGrace + 8*time.Second; took > limit {
		t.Errorf("a 1s step took %v, want at most %v", took, limit)
	}
}
