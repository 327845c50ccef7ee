package httpload

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// The step's in-flight figures against the server's own: six workers on
// a 150 ms route keep six requests in the server's handler at most, and
// all six are in flight when the measured window closes, so
// in_flight.max and in_flight.end are both six, the most the server saw
// at once; a check on the figure judges it.
func TestInFlightFiguresMatchTheServer(t *testing.T) {
	t.Parallel()
	var now, most atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(150 * time.Millisecond)
		now.Add(-1)
	}))
	t.Cleanup(srv.Close)
	a := runGroup(t, fmt.Sprintf(`  - id: inflight
    runner: http
    http: {requests: [{url: "%s/x"}]}
    load: {concurrency: 6}
    duration: 1s
    thresholds:
      checks:
        - {figure: in_flight.max, "==": 6}
`, srv.URL), nil)
	st := a.Steps[0]
	if st.InFlight == nil {
		t.Fatal("no in_flight figures in the step")
	}
	t.Logf("in flight %+v, the server's most at once %d, %d requests", *st.InFlight, most.Load(), st.Requests)
	if st.InFlight.Max != 6 || most.Load() != 6 {
		t.Errorf("in_flight.max = %d, the server's most at once %d; want both 6 (the concurrency)", st.InFlight.Max, most.Load())
	}
	if st.InFlight.End != 6 {
		t.Errorf("in_flight.end = %d, want 6: every worker is inside a 150 ms request when the window closes", st.InFlight.End)
	}
	if len(st.Checks) != 1 || !st.Checks[0].OK || st.Checks[0].Value != 6 {
		t.Errorf("checks %+v, want in_flight.max == 6 ok with value 6", st.Checks)
	}
}
