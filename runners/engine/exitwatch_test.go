package engine

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// exitingTarget is a target handle that exits, "exit 3", when told to.
type exitingTarget struct {
	once sync.Once
	done chan struct{}
	at   time.Time
}

func (x *exitingTarget) PID() int                { return 4242 }
func (x *exitingTarget) Signal(os.Signal) error  { return nil }
func (x *exitingTarget) Exited() <-chan struct{} { return x.done }
func (x *exitingTarget) exit()                   { x.once.Do(func() { x.at = time.Now(); close(x.done) }) }
func (x *exitingTarget) ExitedAt() time.Time     { return x.at }
func (x *exitingTarget) ExitStatus() string {
	select {
	case <-x.done:
		return "exit 3"
	default:
		return ""
	}
}

// stallingObserver holds the clock's goroutine in the measured phase's
// first snapshot for d, as a starved machine would, and meanwhile the
// target exits.
type stallingObserver struct {
	target  *exitingTarget
	d       time.Duration
	stalled bool
}

func (o *stallingObserver) Snapshot(s Snapshot) {
	if o.stalled || s.Phase != PhaseMeasure {
		return
	}
	o.stalled = true
	time.AfterFunc(o.d/4, o.target.exit)
	time.Sleep(o.d)
}

func (o *stallingObserver) Step(string, *artifacts.Step) {}

// TestExitFoundLateIsTheSteps: a clock starved past the measured phase's
// end finds the target's exit and the tick that ends the phase ready at
// once; whichever select takes, the exit came during the step and fails
// it, and its event is timed when it came (0.5 s into the stall), not when
// it was handled. Each run is a fair coin for a select that took the
// tick, so twelve runs find a lost exit with odds of 4095 in 4096.
func TestExitFoundLateIsTheSteps(t *testing.T) {
	t.Parallel()
	for range 12 {
		synctest.Test(t, func(t *testing.T) {
			p, g := sleepPlan(t, "{concurrency: 1}", "")
			target := &exitingTarget{done: make(chan struct{})}
			st := runWith(t, p, g, SessionOptions{Target: target, TargetName: "srv",
				Observer: &stallingObserver{target: target, d: 2 * time.Second}})
			i := slices.IndexFunc(st.Events, func(e artifacts.Event) bool { return e.Kind == artifacts.EventTargetExited })
			if i < 0 {
				t.Fatalf("events %+v: want the target's exit, which came during the step", st.Events)
			}
			if at := st.Events[i].T; at > 1 {
				t.Errorf("the exit is timed at %.3fs, when it was handled; want when it came, before 1 s", at)
			}
			if !slices.ContainsFunc(st.Checks, func(c artifacts.Check) bool { return c.Name == "target" && !c.OK }) {
				t.Errorf("checks %+v: want the target's exit to fail the step", st.Checks)
			}
		})
	}
}

// runWith runs g's first step with opts and returns it.
func runWith(t *testing.T, p *plan.Plan, g *plan.Group, opts SessionOptions) artifacts.Step {
	t.Helper()
	s, err := NewSession(testRegistry, p, g, opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background())
	for range s.Snapshots() {
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return s.Result().Steps[0]
}
