package engine

import (
	"context"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// quickDriver is a Driver whose step ends well inside the first tick, as
// a few cold-start cycles of the spawn kind do.
type quickDriver struct{ sleepRunner }

func (d *quickDriver) Drive(ctx context.Context, env *runners.StepEnv) error {
	time.Sleep(Tick / 10)
	return nil
}

var quickRegistry = runners.MustRegistry(runners.Kind{
	Name:     "quick",
	Validate: (*plan.Group).LoopProblems,
	New: func(*plan.Group, *runners.RunEnv) (runners.Runner, error) {
		return &quickDriver{sleepRunner{spec: &sleepSpec{Delay: plan.Duration{Duration: time.Millisecond}}}}, nil
	},
})

// TestShortStepHasSelfFigures: a step that ends before its first tick is
// still sampled as its window closes, so its self figures (a `self.`
// check's figure) exist; without that sample they were missing and the
// check failed with "no self figures in this step".
func TestShortStepHasSelfFigures(t *testing.T) {
	t.Parallel()
	// runPlan's Run samples benchtui itself (watch.SelfSampler).
	a, _ := runPlan(t, quickRegistry, "version: 1\ngroups:\n  - {id: g, runner: quick, load: {concurrency: 1}, duration: 10s,"+
		" thresholds: {checks: [{figure: self.rss_mb.end, \">\": 0}]}}\n")
	if len(a.Steps) != 1 {
		t.Fatalf("%d steps, want 1", len(a.Steps))
	}
	st := a.Steps[0]
	if st.DurationS >= Tick.Seconds() {
		t.Skipf("the step took %.3f s, not less than a tick: nothing to show", st.DurationS)
	}
	if st.Self == nil || st.Self.RSSMB.End <= 0 {
		t.Fatalf("self figures %+v, want benchtui's RSS at the step's end", st.Self)
	}
	for _, c := range st.Checks {
		if !c.OK {
			t.Errorf("check %s failed: %s", c.Name, c.Note)
		}
	}
}
