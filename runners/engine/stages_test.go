package engine

import (
	"context"
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// perWindow is a step's operations per series point (half a second
// each), rounded.
func perWindow(st artifacts.Step) []float64 {
	var out []float64
	for _, p := range st.Series {
		out = append(out, math.Round(p.RPS*p.DT))
	}
	return out
}

// TestOpenLoopStages: on a fake clock, a staged open loop with no
// duration runs for its stages' sum, offers the integral of its rates
// (every arrival sent, none dropped), and the half-second windows follow
// the stages: 25 then 75 for 50/s then 150/s, 12.5, 37.5, 62.5 and 87.5
// for a ramp from 0 to 200/s over 2 s (give or take the one a 10 ms
// operation carries across a window's edge).
func TestOpenLoopStages(t *testing.T) {
	for _, c := range []struct {
		stages string
		want   []float64
	}{
		{"[{rate: 50, for: 1s}, {rate: 150, for: 1s}]", []float64{25, 25, 75, 75}},
		{"[{rate: 200, for: 2s, ramp: linear}]", []float64{12.5, 37.5, 62.5, 87.5}},
	} {
		t.Run(c.stages, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := parseTestPlan(t, "test.yaml", fmt.Sprintf(`version: 1
groups:
  - id: g
    runner: sleep
    sleep: {delay: 10ms}
    load: {stages: %s, max_in_flight: 10}
`, c.stages))
				st := runSession(t, p, p.Groups[0], nil).Steps[0]
				// The arrival due at the step's last instant may be sent, as
				// with a fixed rate.
				if st.DurationS != 2 || st.Requests < 200 || st.Requests > 201 || st.Dropped != 0 || !near(st.OfferedRPS, 100, 0.5) {
					t.Errorf("duration_s %v, requests %d, dropped %d, offered %v: want 2 s, 200 sent, 100/s offered", st.DurationS, st.Requests, st.Dropped, st.OfferedRPS)
				}
				got := perWindow(st)
				if len(got) != len(c.want) {
					t.Fatalf("windows %v, want %v", got, c.want)
				}
				for i := range got {
					if math.Abs(got[i]-c.want[i]) > 1 {
						t.Errorf("windows %v, want %v", got, c.want)
						break
					}
				}
			})
		})
	}
}

// TestOpenLoopStagesCutByDuration: a duration (or run --duration)
// shorter than the stages cuts them; a longer --duration does not extend
// the step past them: nothing is sent after the stages.
func TestOpenLoopStagesCutByDuration(t *testing.T) {
	for _, c := range []struct {
		duration, override time.Duration
		want               int64
		seconds            float64
	}{
		{duration: 1500 * time.Millisecond, want: 50 + 75, seconds: 1.5},
		{override: 1500 * time.Millisecond, want: 50 + 75, seconds: 1.5},
		{override: 3 * time.Second, want: 50 + 150, seconds: 2},
	} {
		synctest.Test(t, func(t *testing.T) {
			src := `version: 1
groups:
  - id: g
    runner: sleep
    sleep: {delay: 10ms}
    load: {stages: [{rate: 50, for: 1s}, {rate: 150, for: 1s}], max_in_flight: 10}
`
			if c.duration > 0 {
				src += fmt.Sprintf("    duration: %s\n", c.duration)
			}
			p := parseTestPlan(t, "test.yaml", src)
			s, err := NewSession(testRegistry, p, p.Groups[0], SessionOptions{Duration: c.override})
			if err != nil {
				t.Fatal(err)
			}
			s.Start(context.Background())
			for range s.Snapshots() {
			}
			<-s.Done()
			st := s.Result().Steps[0]
			// The arrival due at the step's last instant may be sent.
			if n := st.Requests + st.Dropped; n < c.want || n > c.want+1 || st.DurationS != c.seconds {
				t.Errorf("duration %s, run --duration %s: %d arrivals in %v s, want %d in %v s", c.duration, c.override, n, st.DurationS, c.want, c.seconds)
			}
		})
	}
}
