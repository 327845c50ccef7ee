package engine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// TestMain runs 4 tests at once: the parallel ones wait on child
// processes and their steps' clocks, not on the CPU; the tests that judge
// time or rates stay serial.
func TestMain(m *testing.M) {
	testbin.DefaultParallel(4)
	goleak.VerifyTestMain(m, goleak.Cleanup(testbin.Exit))
}

// sleepSpec is the section of the test runner kind "sleep": each operation
// takes Delay; every Fail-th one fails.
type sleepSpec struct {
	Delay plan.Duration `yaml:"delay,required"`
	Fail  int           `yaml:"fail"`
	// Make is how long making one worker takes (a connection's setup).
	Make plan.Duration `yaml:"make"`
	// made, when set, is called as each worker is made.
	made func()
}

type sleepRunner struct{ spec *sleepSpec }

type sleepWorker struct {
	spec *sleepSpec
	n    int
}

// testRegistry knows the sleep kind only.
var testRegistry = runners.MustRegistry(runners.Kind{
	Name:     "sleep",
	Sections: map[string]func() any{"sleep": func() any { return &sleepSpec{} }},
	Validate: (*plan.Group).LoopProblems,
	New: func(g *plan.Group, _ *runners.RunEnv) (runners.Runner, error) {
		return &sleepRunner{spec: plan.Section[sleepSpec](g, "sleep")}, nil
	},
})

func (r *sleepRunner) Prepare(context.Context, *runners.StepEnv) error { return nil }
func (r *sleepRunner) NewWorker(int, *runners.Recorder) (runners.Worker, error) {
	time.Sleep(r.spec.Make.D())
	if r.spec.made != nil {
		r.spec.made()
	}
	return &sleepWorker{spec: r.spec}, nil
}
func (r *sleepRunner) Finish(context.Context, *runners.StepEnv, runners.Summary) (runners.Findings, error) {
	return runners.Findings{}, nil
}
func (r *sleepRunner) Close() error { return nil }

func (w *sleepWorker) Close() error { return nil }

func (w *sleepWorker) Do(ctx context.Context) runners.Outcome {
	w.n++
	t := time.NewTimer(w.spec.Delay.D())
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		// As a client whose cut surfaces as a deadline would say.
		return runners.Outcome{Err: "timeout"}
	}
	if w.spec.Fail > 0 && w.n%w.spec.Fail == 0 {
		return runners.Outcome{Err: "boom"}
	}
	return runners.Outcome{}
}

// sleepPlan is a one-group plan of the sleep kind.
func sleepPlan(t *testing.T, load, extra string) (*plan.Plan, *plan.Group) {
	t.Helper()
	src := fmt.Sprintf(`version: 1
groups:
  - id: g
    runner: sleep
    sleep: {delay: 10ms}
    load: %s
    duration: 1s
%s`, load, extra)
	p := parseTestPlan(t, "test.yaml", src)
	return p, p.Groups[0]
}

// parseTestPlan parses src, named name, with the test registry and no
// environment.
func parseTestPlan(t *testing.T, name, src string) *plan.Plan {
	t.Helper()
	p, err := plan.ParsePlan(name, []byte(src), func(string) (string, bool) { return "", false }, testRegistry)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runSession runs a session to its end, calling during(s) once it started.
func runSession(t *testing.T, p *plan.Plan, g *plan.Group, during func(*Session)) *artifacts.Artifact {
	t.Helper()
	s, err := NewSession(testRegistry, p, g, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background())
	if during != nil {
		during(s)
	}
	for range s.Snapshots() {
	}
	<-s.Done()
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return s.Result()
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestClosedLoopCountsAndLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, g := sleepPlan(t, "{concurrency: 4}", "")
		a := runSession(t, p, g, nil)
		st := a.Steps[0]
		// 4 workers, 10 ms each, for 1 s: 400 operations (the last ones of
		// each worker may finish while draining).
		if st.Requests < 396 || st.Requests > 404 {
			t.Errorf("requests = %d, want 400±4", st.Requests)
		}
		if !near(st.LatencyMS.P50, 10, 0.1) || !near(st.LatencyMS.Max, 10, 0.1) {
			t.Errorf("latency = %+v, want 10ms everywhere", st.LatencyMS)
		}
		if a.Run.Partial || st.DurationS != 1 {
			t.Errorf("partial=%v duration=%v, want complete 1s", a.Run.Partial, st.DurationS)
		}
	})
}

func TestOpenLoopRateAndDrops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, g := sleepPlan(t, "{rate: 100, max_in_flight: 5}", "")
		st := runSession(t, p, g, nil).Steps[0]
		if st.Requests < 99 || st.Requests > 101 || st.Dropped != 0 {
			t.Errorf("requests=%d dropped=%d, want 100 and 0", st.Requests, st.Dropped)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		// 100 ms operations, 5 slots: at most 50/s can be served, so about
		// half of 100 arrivals find no free slot and are dropped.
		p, g := sleepPlan(t, "{rate: 100, max_in_flight: 5}", "")
		g.Sections["sleep"].(*sleepSpec).Delay = plan.Duration{Duration: 100 * time.Millisecond}
		st := runSession(t, p, g, nil).Steps[0]
		if st.Requests+st.Dropped < 99 || st.Dropped < 45 || st.Dropped > 55 {
			t.Errorf("requests=%d dropped=%d, want about 50 dropped of 100", st.Requests, st.Dropped)
		}
	})
}

func TestPauseShiftsScheduleAndIsExcluded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, g := sleepPlan(t, "{rate: 100, max_in_flight: 5}", "")
		a := runSession(t, p, g, func(s *Session) {
			time.Sleep(500 * time.Millisecond)
			if !s.Pause() {
				t.Error("Pause returned false")
			}
			time.Sleep(2 * time.Second)
			s.Resume()
		})
		st := a.Steps[0]
		if st.PausedS != 2 || st.DurationS != 1 {
			t.Errorf("paused_s=%v duration_s=%v, want 2 and 1", st.PausedS, st.DurationS)
		}
		// The schedule moved by the pause: no burst of overdue arrivals,
		// so no latency beyond the operation itself and no drops.
		if st.Requests < 99 || st.Requests > 101 || st.Dropped != 0 || st.LatencyMS.Max > 10.1 {
			t.Errorf("requests=%d dropped=%d max=%vms", st.Requests, st.Dropped, st.LatencyMS.Max)
		}
		if !near(st.ThroughputRPS, 100, 1.5) {
			t.Errorf("throughput %v, want 100 (paused time excluded)", st.ThroughputRPS)
		}
		assertEvents(t, st, artifacts.EventPaused, artifacts.EventResumed)
	})
}

func TestExtendLengthensStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, g := sleepPlan(t, "{rate: 100, max_in_flight: 5}", "")
		st := runSession(t, p, g, func(s *Session) {
			time.Sleep(300 * time.Millisecond)
			if !s.Extend(500*time.Millisecond, "") {
				t.Error("Extend returned false")
			}
		}).Steps[0]
		if st.DurationS != 1.5 || st.Requests < 149 || st.Requests > 151 {
			t.Errorf("duration_s=%v requests=%d, want 1.5 and 150", st.DurationS, st.Requests)
		}
		assertEvents(t, st, artifacts.EventExtended)
	})
}

func TestStopMarksPartial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, g := sleepPlan(t, "{concurrency: 2}", "")
		a := runSession(t, p, g, func(s *Session) {
			time.Sleep(400 * time.Millisecond)
			s.Stop("test")
		})
		st := a.Steps[0]
		if !a.Run.Partial || st.DurationS != 0.4 || st.Requests < 78 || st.Requests > 82 {
			t.Errorf("partial=%v duration=%v requests=%d", a.Run.Partial, st.DurationS, st.Requests)
		}
		assertEvents(t, st, artifacts.EventStopped)
	})
}

func TestWarmupIsNotRecordedAndSweepMakesSteps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, g := sleepPlan(t, "{concurrency: 1}", "    warmup: 2s\n    sweep: {concurrency: [1, 2]}\n    thresholds: {p99: 5ms, error_rate: 0}")
		a := runSession(t, p, g, nil)
		if len(a.Steps) != 2 || a.Steps[0].Label != "concurrency=1" || a.Steps[1].Label != "concurrency=2" {
			t.Fatalf("steps = %+v", a.Steps)
		}
		// Operations straddling the warmup's end and the step's end are
		// counted: up to one per worker at each boundary.
		for i, want := range []int64{100, 200} {
			if got := a.Steps[i].Requests; got < want-int64(2*(i+1)) || got > want+int64(2*(i+1)) {
				t.Errorf("step %d: requests = %d, want %d (warmup excluded)", i, got, want)
			}
		}
		if c := a.Steps[0].Checks; len(c) != 2 || c[0].OK || !c[1].OK {
			t.Errorf("checks = %+v, want p99 failed and error_rate passed", c)
		}
		if !a.Failed() {
			t.Error("artifact with a failed threshold not Failed()")
		}
	})
}

func TestErrorsAreCountedByKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, g := sleepPlan(t, "{concurrency: 1}", "")
		g.Sections["sleep"].(*sleepSpec).Fail = 4
		st := runSession(t, p, g, nil).Steps[0]
		if st.ErrorKinds["boom"] != st.Errors || st.Errors < 24 || st.Errors > 26 {
			t.Errorf("errors=%d kinds=%v, want 25 boom", st.Errors, st.ErrorKinds)
		}
	})
}

// TestCutOperationsCanceled: operations still in flight when the step's
// grace ends are counted as canceled, whatever error the runner saw, and
// their cut latency is in no latency figure.
func TestCutOperationsCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, g := sleepPlan(t, "{concurrency: 3}", "")
		g.Sections["sleep"].(*sleepSpec).Delay = plan.Duration{Duration: time.Minute}
		st := runSession(t, p, g, nil).Steps[0]
		if st.Requests != 3 || st.Errors != 3 || st.ErrorKinds[runners.KindCanceled] != 3 || len(st.ErrorKinds) != 1 {
			t.Errorf("requests %d, errors %d, kinds %v: want the 3 cut operations canceled", st.Requests, st.Errors, st.ErrorKinds)
		}
		h, err := artifacts.DecodeHistogram(st.Histogram)
		if err != nil || h.TotalCount() != 0 || st.LatencyMS.Max != 0 {
			t.Errorf("histogram of %d (%v), latency max %.0f ms: a cut operation has no latency", h.TotalCount(), err, st.LatencyMS.Max)
		}
	})
}

func assertEvents(t *testing.T, st artifacts.Step, kinds ...string) {
	t.Helper()
	have := map[string]bool{}
	for _, e := range st.Events {
		have[e.Kind] = true
	}
	for _, k := range kinds {
		if !have[k] {
			t.Errorf("no %q event in %+v", k, st.Events)
		}
	}
}

// TestOverloadThroughputIsWhatWasServed: an open loop at twice what the
// workers can serve reports the served rate as throughput, the set rate as
// offered, the work finished after the window as drained, and one sample
// block per second of the step.
func TestOverloadThroughputIsWhatWasServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// 100 ms operations, 5 slots: at most 50/s served of 100/s offered
		// (a little less: on the fake clock a slot frees at the very instant
		// the next arrival is due, and the arrival may come first).
		p, g := sleepPlan(t, "{rate: 100, max_in_flight: 5}", "")
		g.Duration = plan.Duration{Duration: 4 * time.Second}
		g.Sections["sleep"].(*sleepSpec).Delay = plan.Duration{Duration: 100 * time.Millisecond}
		st := runSession(t, p, g, nil).Steps[0]
		if st.ThroughputRPS < 45 || st.ThroughputRPS > 50 || st.OKRPS != st.ThroughputRPS {
			t.Errorf("throughput %.1f/s ok %.1f/s, want the 50/s served", st.ThroughputRPS, st.OKRPS)
		}
		if st.OfferedRPS < 99 || st.OfferedRPS > 101 {
			t.Errorf("offered %.1f/s, want the set 100/s", st.OfferedRPS)
		}
		if st.Late != 0 {
			t.Errorf("late %d: the fake clock never lets the dispatcher fall behind", st.Late)
		}
		if st.Drained < 1 || st.Drained > 5 {
			t.Errorf("drained %d, want the operations in flight at the end (at most 5)", st.Drained)
		}
		s := st.Samples
		if s == nil || s.Of != artifacts.SamplesOfBlocks || s.BlockS != 1 || len(s.Values[artifacts.SampleRPS]) != 4 {
			t.Fatalf("samples %+v, want 4 blocks of 1s", s)
		}
		// A slot freed at the instant an arrival is due serves it, so the
		// slots are busy back to back and operations end on the instants
		// blocks end: on the fake clock such an operation may fall in the
		// next block (the tick and the worker wake at one instant). Hence
		// one over 50 in a block, never more, and the sum below is exact.
		sum := 0.0
		for i, v := range s.Values[artifacts.SampleRPS] {
			sum += v
			if v < 40 || v > 51 {
				t.Errorf("block %d: %.1f/s, want at most 50 (51 with a tie at the block's edge)", i, v)
			}
		}
		// Only full blocks are samples: what completed after the last
		// block's end (at most one tick's worth, 5 slots) is in none.
		if inWindow := float64(st.Requests - st.Drained); sum > inWindow+0.5 || sum < inWindow-5.5 {
			t.Errorf("blocks hold %.0f operations, the window %.0f", sum, inWindow)
		}
	})
}

// TestOpenLoopCountsLateArrivals: at a rate no dispatcher keeps up with,
// with workers to spare, arrivals go out after their due time and are
// counted late; never more than were sent. (With every worker busy, an
// arrival is dropped instead: the next one sent is due when a worker
// frees.)
func TestOpenLoopCountsLateArrivals(t *testing.T) {
	p, g := sleepPlan(t, "{rate: 1000000, max_in_flight: 1000}", "")
	g.Duration = plan.Duration{Duration: 300 * time.Millisecond}
	g.Sections["sleep"].(*sleepSpec).Delay = plan.Duration{Duration: time.Millisecond}
	st := runSession(t, p, g, nil).Steps[0]
	if st.Late == 0 || st.Late > st.Requests || st.Dropped == 0 {
		t.Errorf("late %d of %d sent, %d dropped; want some late, none beyond those sent, and drops", st.Late, st.Requests, st.Dropped)
	}
}

// TestRepeatMergesRunsIntoSamples: repeat 3 runs the step three times; the
// step adds their counts and times, its percentiles come from the merged
// histogram, and each run is one sample.
func TestRepeatMergesRunsIntoSamples(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, g := sleepPlan(t, "{concurrency: 2}", "    repeat: 3\n")
		a := runSession(t, p, g, nil)
		if len(a.Steps) != 1 || a.Run.Partial {
			t.Fatalf("steps %d partial %v, want one whole step", len(a.Steps), a.Run.Partial)
		}
		st := a.Steps[0]
		s := st.Samples
		if s == nil || s.Of != artifacts.SamplesOfRuns || len(s.Values[artifacts.SampleRPS]) != 3 {
			t.Fatalf("samples %+v, want 3 runs", s)
		}
		sum := 0.0
		for _, v := range s.Values[artifacts.SampleRPS] {
			sum += v // each run 1 s at 2 workers x 100/s
			if v < 190 || v > 200 {
				t.Errorf("run at %.1f/s, want about 200", v)
			}
		}
		if st.DurationS != 3 || math.Abs(float64(st.Requests-st.Drained)-sum) > 0.5 {
			t.Errorf("%.3fs, %d requests (%d drained); want 3 s and the runs' %.0f", st.DurationS, st.Requests, st.Drained, sum)
		}
		if st.Label != "concurrency=2" || st.LatencyMS.P50 < 10 || st.LatencyMS.P50 > 10.1 {
			t.Errorf("label %q p50 %.2f, want the step's label and 10 ms", st.Label, st.LatencyMS.P50)
		}
		if h, err := artifacts.DecodeHistogram(st.Histogram); err != nil || h.TotalCount() != st.Requests {
			t.Errorf("histogram of %v operations (%v), want all %d runs' operations", h.TotalCount(), err, st.Requests)
		}
		notes := 0
		for _, e := range st.Events {
			if e.Kind == artifacts.EventNote && strings.HasPrefix(e.Note, "run ") {
				notes++
			}
		}
		if notes != 3 {
			t.Errorf("events %v, want a note at the start of each run", st.Events)
		}
	})
}

// TestArtifactConfigIsWhatRan: a --duration override and a count are in
// the artifact's config, expanded and as written.
func TestArtifactConfigIsWhatRan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, g := sleepPlan(t, "{concurrency: 1}", "")
		s, err := NewSession(testRegistry, p, g, SessionOptions{Duration: 300 * time.Millisecond, Count: 2})
		if err != nil {
			t.Fatal(err)
		}
		s.Start(context.Background())
		for range s.Snapshots() {
		}
		a := s.Result()
		for name, cfg := range map[string]map[string]any{"config": a.Group.Config, "config_as_written": a.Group.ConfigAsWritten} {
			if cfg["duration"] != "300ms" || cfg["repeat"] != 2 {
				t.Errorf("%s %v: want duration 300ms and repeat 2, what ran", name, cfg)
			}
		}
		if g.Raw["duration"] != "1s" {
			t.Errorf("the plan's own config changed: %v", g.Raw)
		}
		// A step ends on the first tick (250 ms) past its time: 2 x 500 ms.
		if st := a.Steps[0]; st.DurationS != 1 || st.Samples.Of != artifacts.SamplesOfRuns || len(st.Samples.Values[artifacts.SampleP50]) != 2 {
			t.Errorf("%.3fs measured, samples %+v; want 2 runs of 300ms (ending on the 500 ms tick)", st.DurationS, st.Samples)
		}
	})
}
