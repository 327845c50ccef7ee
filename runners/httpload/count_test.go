package httpload

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestIterationsExact: iterations: 150 sends exactly 150 requests, as the
// server counts them, whatever the concurrency, and makes exactly 150
// arrivals, sent or dropped, in an open loop; the step ends when they are
// done, its duration the time they took.
func TestIterationsExact(t *testing.T) {
	t.Parallel()
	for _, load := range []string{"{concurrency: 1}", "{concurrency: 7}", "{rate: 1000, max_in_flight: 50}"} {
		t.Run(load, func(t *testing.T) {
			srv, served := runnertest.CountingServer(t, time.Millisecond)
			a := runGroup(t, fmt.Sprintf(`  - id: count
    runner: http
    http: {requests: [{url: "%s/"}]}
    load: %s
    iterations: 150
`, srv.URL, load), nil)
			st := a.Steps[0]
			// An open loop's count is of arrivals: one that finds every
			// slot taken (a busy machine slows the server) is dropped.
			if served.Load() != st.Requests || st.Requests+st.Dropped != 150 || st.Errors != 0 ||
				(!strings.Contains(load, "rate") && st.Dropped != 0) {
				t.Errorf("served %d, requests %d, errors %d, dropped %d; want exactly 150 sent (open loop: sent or dropped)", served.Load(), st.Requests, st.Errors, st.Dropped)
			}
			if st.DurationS <= 0 || st.DurationS > 60 || a.Run.Partial {
				t.Errorf("duration_s = %.3f, partial %v: want the time the 150 took", st.DurationS, a.Run.Partial)
			}
		})
	}
}

// TestPerWorkerIterations: 10 per worker with 4 workers is 40.
func TestPerWorkerIterations(t *testing.T) {
	srv, served := runnertest.CountingServer(t, 0)
	st := runGroup(t, fmt.Sprintf(`  - id: per
    runner: http
    http: {requests: [{url: "%s/"}]}
    load: {concurrency: 4}
    per_worker_iterations: 10
`, srv.URL), nil).Steps[0]
	if served.Load() != 40 || st.Requests != 40 {
		t.Errorf("served %d, requests %d; want 40", served.Load(), st.Requests)
	}
}

// TestMaxDurationCaps: a slow server cannot hold a counted step past
// its max_duration.
func TestMaxDurationCaps(t *testing.T) {
	srv, served := runnertest.CountingServer(t, 100*time.Millisecond)
	start := time.Now()
	st := runGroup(t, fmt.Sprintf(`  - id: cap
    runner: http
    http: {requests: [{url: "%s/"}]}
    load: {concurrency: 2}
    iterations: 1000
    max_duration: 1s
`, srv.URL), nil).Steps[0]
	// The step's clock ends at the tick that sees the cap: late on a
	// starved machine (2.43 s in a suite at load 23), never the 50 s the
	// count would take.
	if took := time.Since(start); took > 10*time.Second || st.DurationS < 0.9 || st.DurationS > 6 {
		t.Errorf("took %s, duration_s %.2f: want about the 1s cap", took, st.DurationS)
	}
	if n := served.Load(); n >= 1000 || n == 0 {
		t.Errorf("served %d: the cap must cut the 1000 short", n)
	}
}

// TestCountAndDataPlanErrors: every problem of counts and data files is
// reported at once, with its place.
func TestCountAndDataPlanErrors(t *testing.T) {
	err := parseErr(`  - id: both
    runner: http
    http: {requests: [{url: "http://127.0.0.1:1/"}]}
    load: {rate: 10, max_in_flight: 5}
    iterations: 10
    per_worker_iterations: 5
    duration: 1s
    warmup: 1s
  - id: nocount
    runner: http
    http: {requests: [{url: "http://127.0.0.1:1/"}]}
    load: {concurrency: 1}
    max_duration: 1s
  - id: data
    runner: http
    http: {requests: [{url: "http://127.0.0.1:1/{{env \"UNSET_VAR\"}}"}]}
    load: {concurrency: 1}
    iterations: 1
    data: {file: no-such.csv, mode: shuffled}
`)
	wantErrors(t, err,
		"p.yaml:3:5: group both: iterations: give iterations (in all) or per_worker_iterations, not both",
		"group both: duration: a counted step ends after its iterations",
		"group both: warmup: a counted step sends exactly its iterations",
		"group both: per_worker_iterations: an open loop's arrivals belong to no worker",
		"p.yaml:11:5: group nocount: max_duration: caps a step that ends after a count",
		"group nocount: duration: missing",
		"p.yaml:16:5: group data: data.mode: want sequential, random or unique",
		"environment variable UNSET_VAR is not set",
	)
	err = parseErr(`  - id: data
    runner: http
    http: {requests: [{url: "http://127.0.0.1:1/"}]}
    load: {concurrency: 1}
    iterations: 1
    data: {file: no-such.csv}
`)
	if err == nil || !strings.Contains(err.Error(), "group data: data.file: open no-such.csv") {
		t.Errorf("a missing data file: %v", err)
	}
}
