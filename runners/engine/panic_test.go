package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// panickySpec makes the test kind "panicky" panic In one of its calls:
// do (the 5th operation of a worker), drive, finish, prepare or new.
type panickySpec struct {
	In string `yaml:"in,required"`
}

// panickyRunner is a runner with a bug: an index out of range where its
// spec says. It is a Driver when the bug is in drive.
type panickyRunner struct {
	sleepRunner
	in string
}

type panickyDriver struct{ panickyRunner }

type panickyWorker struct {
	sleepWorker
	in string
}

var panickyRegistry = runners.MustRegistry(runners.Kind{
	Name:     "panicky",
	Sections: map[string]func() any{"panicky": func() any { return &panickySpec{} }},
	Validate: (*plan.Group).LoopProblems,
	New: func(g *plan.Group, _ *runners.RunEnv) (runners.Runner, error) {
		in := plan.Section[panickySpec](g, "panicky").In
		if in == "new" {
			outOfRange(4)
		}
		r := panickyRunner{sleepRunner: sleepRunner{spec: &sleepSpec{Delay: plan.Duration{Duration: time.Millisecond}}}, in: in}
		if in == "drive" {
			return &panickyDriver{r}, nil
		}
		return &r, nil
	},
})

// outOfRange panics as a runner's bug would.
func outOfRange(n int) int { return []int{}[n] }

func (r *panickyRunner) Prepare(context.Context, *runners.StepEnv) error {
	if r.in == "prepare" {
		outOfRange(1)
	}
	return nil
}

func (r *panickyRunner) NewWorker(int, *runners.Recorder) (runners.Worker, error) {
	return &panickyWorker{sleepWorker: sleepWorker{spec: r.spec}, in: r.in}, nil
}

func (r *panickyRunner) Finish(context.Context, *runners.StepEnv, runners.Summary) (runners.Findings, error) {
	if r.in == "finish" {
		outOfRange(2)
	}
	return runners.Findings{}, nil
}

func (d *panickyDriver) Drive(ctx context.Context, env *runners.StepEnv) error {
	time.Sleep(50 * time.Millisecond)
	outOfRange(3)
	return nil
}

func (w *panickyWorker) Do(ctx context.Context) runners.Outcome {
	if w.in == "do" && w.n == 5 {
		outOfRange(w.n)
	}
	return w.sleepWorker.Do(ctx)
}

// TestRunnerPanicsAreContained: a runner's panic, wherever it is, ends
// its step (or, before any step, its session) with the figures measured so
// far kept, a failed "panic" check or the session's error naming the panic
// and where it was, and the process going on.
func TestRunnerPanicsAreContained(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, load, check string }{
		{"do", "{concurrency: 2}", "panic"},
		{"do", "{rate: 200, max_in_flight: 2}", "panic"},
		{"drive", "{concurrency: 1}", "panic"},
		{"finish", "{concurrency: 2}", "finish"},
		{"prepare", "{concurrency: 2}", ""},
		{"new", "{concurrency: 2}", ""},
	} {
		t.Run(c.in+" "+c.load, func(t *testing.T) {
			t.Parallel()
			p, err := plan.ParsePlan("test.yaml", []byte(fmt.Sprintf(`version: 1
groups:
  - id: g
    runner: panicky
    panicky: {in: %s}
    load: %s
    duration: 3s
`, c.in, c.load)), func(string) (string, bool) { return "", false }, panickyRegistry)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewSession(panickyRegistry, p, p.Groups[0], SessionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			s.Start(context.Background())
			for range s.Snapshots() {
			}
			<-s.Done()
			took := time.Since(start)
			a := s.Result()
			if c.check == "" { // before any step: the session's error
				if err := s.Err(); err == nil || !strings.Contains(err.Error(), "index out of range") || !strings.Contains(err.Error(), "outOfRange") {
					t.Errorf("session error %v: want the panic and its site", err)
				}
				return
			}
			if len(a.Steps) == 0 {
				t.Fatalf("no step kept; session error %v", s.Err())
			}
			st := a.Steps[0]
			var failed string
			for _, ch := range st.Checks {
				if ch.Name == c.check && !ch.OK {
					failed = ch.Note
				}
			}
			if !strings.Contains(failed, "index out of range") || !strings.Contains(failed, "outOfRange") || !a.Failed() {
				t.Errorf("checks %+v: want a failed %q check naming the panic and outOfRange, and the run failed", st.Checks, c.check)
			}
			// The step stops at the panic, long before its 3 s (finish
			// panics after the step ran its course).
			if c.in != "finish" && took > 2*time.Second {
				t.Errorf("took %v: the panic must stop the step", took)
			}
			if c.in == "do" && st.Requests == 0 {
				t.Errorf("requests %d: want the operations before the panic kept", st.Requests)
			}
		})
	}
}
