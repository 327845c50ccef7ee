package engine

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// TestSoakPolicyAgainstRealTargets watches two real processes: one that
// retains 1 MiB every 100 ms (600 MiB/min) and one that stays flat. The
// leaky one's step is extended by the policy until its max, each extension
// an event, and its measured slope is near the truth; the flat one is left
// alone.
func TestSoakPolicyAgainstRealTargets(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("samples the targets from /proc: Linux only")
	}
	bin := testbin.Build(t, "../watch/testdata/leaky")
	src := fmt.Sprintf(`version: 1
targets:
  leaky: {command: [%[1]q, "-leak-mb", "1", "-every", "100ms"], sample: 250ms}
  flat: {command: [%[1]q], sample: 250ms}
groups:
  - id: leaky
    runner: sleep
    target: leaky
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    duration: 2s
    soak: {extend_while_rss_rising: {slope_mb_per_min: 1.0, window: 1s, step: 500ms, max: 3500ms}}
  - id: flat
    runner: sleep
    target: flat
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    duration: 2s
    soak: {extend_while_rss_rising: {slope_mb_per_min: 1.0, window: 1s, step: 500ms, max: 3500ms}}
`, bin)
	p := parseTestPlan(t, "soak.yaml", src)
	run := NewRun(p, testRegistry, t.TempDir(), "test")
	defer run.Close()
	leaky, flat := runGroupOf(t, run, p.Groups[0]), runGroupOf(t, run, p.Groups[1])
	t.Logf("leaky: %.2fs, slope %.1f MB/min; flat: %.2fs, slope %.2f MB/min",
		leaky.DurationS, leaky.Target.RSSSlopeMBPerMin, flat.DurationS, flat.Target.RSSSlopeMBPerMin)

	// A step that ended far past its 3.5 s max had a starved clock (4.26 s
	// beside a busy suite: its samples too sparse for a slope in the 1 s
	// window, so no extension, and a slope of 319 MB/min): then only the
	// rise is judged, the policy's extensions and the slope's accuracy
	// being the machine's.
	if leaky.DurationS > 3.9 {
		t.Logf("leaky: the step ended at %.2fs, past its 3.5s max: starved, so only its rise is judged", leaky.DurationS)
	} else {
		if n := countEvents(leaky, artifacts.EventExtended); n != 3 || leaky.DurationS < 3.4 {
			t.Errorf("leaky: %d extensions, %.2fs; want 3 (to the 3.5s max) and 3.5s", n, leaky.DurationS)
		}
		if s := leaky.Target.RSSSlopeMBPerMin; s < 450 || s > 750 {
			t.Errorf("leaky: slope %.1f MB/min, want 600 ±25%%", s)
		}
	}
	// Its events say whether it was extended; its length is not judged: a
	// starved machine ends a 2 s step late (3.7 s seen beside 4 burners).
	if n := countEvents(flat, artifacts.EventExtended); n != 0 {
		t.Errorf("flat: %d extensions, %.2fs; want none", n, flat.DurationS)
	}
	if s := flat.Target.RSSSlopeMBPerMin; s > 1 {
		t.Errorf("flat: slope %.2f MB/min, want below the 1 MB/min threshold", s)
	}
	if !leaky.Target.RSSRising || flat.Target.RSSRising {
		t.Errorf("RSS rising: leaky %v, flat %v; want true, false", leaky.Target.RSSRising, flat.Target.RSSRising)
	}
	// The flat run as the baseline of the leaky one: the slope's rise
	// (35 MB in 3.5 s) is far beyond its error bars and the leak floors,
	// so compare says worse however short the runs.
	leaky.Label, flat.Label = "soak", "soak"
	art := func(st artifacts.Step) []*artifacts.Artifact {
		return []*artifacts.Artifact{{Group: artifacts.Group{ID: "soak"}, Steps: []artifacts.Step{st}}}
	}
	if cmp := compare.Compare(art(flat), art(leaky), compare.CompareOptions{}); !hasVerdict(cmp, compare.MetricRSSSlope, compare.Worse) {
		t.Errorf("flat -> leaky: rss slope not judged worse: %+v", cmp.Rows)
	}
	// A quick try (run --duration) is not a soak: the leak is measured,
	// the step is not extended.
	quick := NewRun(p, testRegistry, t.TempDir(), "test")
	defer quick.Close()
	quick.Duration = 2 * time.Second
	if st := runGroupOf(t, quick, p.Groups[0]); countEvents(st, artifacts.EventExtended) != 0 || st.Target.RSSSlopeMBPerMin < 100 {
		t.Errorf("quick try: %d extensions, %.2fs, slope %.1f MB/min; want none, 2 s, the leak seen",
			countEvents(st, artifacts.EventExtended), st.DurationS, st.Target.RSSSlopeMBPerMin)
	}
}

func hasVerdict(c compare.Comparison, metric, verdict string) bool {
	for _, r := range c.Rows {
		if r.Metric == metric && r.Verdict == verdict {
			return true
		}
	}
	return false
}

// runGroupOf runs g's one step, which must have watched a target.
func runGroupOf(t *testing.T, run *Run, g *plan.Group) artifacts.Step {
	t.Helper()
	st := runOne(t, run, g)
	if st.Target == nil {
		t.Fatalf("%s: no target figures: %+v", g.ID, st)
	}
	return st
}

func countEvents(st artifacts.Step, kind string) int {
	n := 0
	for _, e := range st.Events {
		if e.Kind == kind {
			n++
		}
	}
	return n
}
