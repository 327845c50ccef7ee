package engine

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/benchtui/benchtui/runners/plan"
)

// countPlan is a one-group plan of the sleep kind (10 ms operations) that
// ends after a count.
func countPlan(t *testing.T, load, count string) (*plan.Plan, *plan.Group) {
	t.Helper()
	p, err := plan.ParsePlan("test.yaml", []byte(fmt.Sprintf(`version: 1
groups:
  - id: g
    runner: sleep
    sleep: {delay: 10ms}
    load: %s
    %s
`, load, count)), func(string) (string, bool) { return "", false }, testRegistry)
	if err != nil {
		t.Fatal(err)
	}
	return p, p.Groups[0]
}

// TestCountedStepEndsWhenDone: on a fake clock, a counted step performs
// exactly its count and its measured time is the time the count took.
func TestCountedStepEndsWhenDone(t *testing.T) {
	cases := []struct {
		load, count string
		want        int64
		seconds     float64
	}{
		{"{concurrency: 4}", "iterations: 100", 100, 0.25},            // 25 rounds of 10 ms
		{"{concurrency: 3}", "iterations: 100", 100, 0.34},            // 34 rounds, the last one short
		{"{concurrency: 4}", "per_worker_iterations: 10", 40, 0.1},    // 10 rounds
		{"{rate: 100, max_in_flight: 10}", "iterations: 50", 50, 0.5}, // the 50th due at 0.49 s, done 10 ms later
	}
	for _, c := range cases {
		t.Run(c.load+" "+c.count, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p, g := countPlan(t, c.load, c.count)
				a := runSession(t, p, g, nil)
				st := a.Steps[0]
				if st.Requests != c.want || st.Dropped != 0 || a.Run.Partial {
					t.Errorf("requests %d dropped %d partial %v, want exactly %d", st.Requests, st.Dropped, a.Run.Partial, c.want)
				}
				if !near(st.DurationS, c.seconds, 0.011) {
					t.Errorf("duration_s = %v, want %v: the time the count took", st.DurationS, c.seconds)
				}
			})
		})
	}
}

// TestCountedStepCappedByMaxDuration: the cap ends a count that is not
// done, at the engine's tick (250 ms) as a duration does.
func TestCountedStepCappedByMaxDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, g := countPlan(t, "{concurrency: 2}", "iterations: 1000\n    max_duration: 1s")
		st := runSession(t, p, g, nil).Steps[0]
		if st.DurationS != 1 || st.Requests < 198 || st.Requests > 202 {
			t.Errorf("duration_s %v requests %d, want the 1s cap and about 200", st.DurationS, st.Requests)
		}
	})
}
