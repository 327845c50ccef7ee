package probe

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/plan"
)

// TestNonFiniteReadsAreGaps: NaN and ±Inf, from a command, a JSON reply
// or a Prometheus page (a summary's empty quantile), are failed reads,
// counted; reads near the largest float64 are kept, with a finite slope.
// The reads get the longest timeout and the set runs until each probe has
// read twice (not a fixed half second; two reads fit a slope): on a loaded machine (load 42) a
// fork of echo outlived the interval's default timeout, a timeout that
// this test is not about.
func TestNonFiniteReadsAreGaps(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "# TYPE g gauge\ng +Inf\n# TYPE rpc summary\nrpc{quantile=\"0.99\"} NaN\nrpc_sum 0\nrpc_count 0\n")
	})
	mux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"v": "NaN"}`) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tick, timeout := every(100*time.Millisecond), every(plan.MaxProbeTimeout)
	specs := []plan.Probe{
		{Name: "nan", Interval: tick, Timeout: timeout, Command: []string{"echo", "nan"}},
		{Name: "inf", Interval: tick, Timeout: timeout, Command: []string{"echo", "-Inf"}},
		{Name: "gauge", Interval: tick, Timeout: timeout, Metric: &plan.ProbeMetric{URL: srv.URL + "/metrics", Name: "g"}},
		{Name: "quantile", Interval: tick, Timeout: timeout, Metric: &plan.ProbeMetric{URL: srv.URL + "/metrics", Name: "rpc", Labels: map[string]string{"quantile": "0.99"}}},
		{Name: "json", Interval: tick, Timeout: timeout, HTTP: &plan.ProbeHTTP{URL: srv.URL + "/stats", JSON: "$.v"}},
		{Name: "huge", Interval: tick, Timeout: timeout, Command: []string{"echo", "1.7e308"}},
	}
	stats, errs := runSetUntilRead(t, specs, 2, time.Minute)
	for _, name := range []string{"nan", "inf", "gauge", "quantile", "json"} {
		s := stats[name]
		if s.Samples != 0 || s.Errors == 0 || !strings.Contains(errs[name], "not a finite number") {
			t.Errorf("%s: %d samples, %d errors, last error %q; want every read a counted gap", name, s.Samples, s.Errors, errs[name])
		}
	}
	if h := stats["huge"]; h.Samples == 0 || h.Max != 1.7e308 || math.IsNaN(h.SlopePerMin) || math.IsInf(h.SlopePerMin, 0) {
		t.Errorf("huge: %+v; want the reads kept and a finite slope", h)
	}
}

// TestSlopeOfHugeReadsIsFinite: reads swinging across the float64 range
// fit to a clamped slope, never Inf or NaN.
func TestSlopeOfHugeReadsIsFinite(t *testing.T) {
	var s series
	s.init()
	s.add(0, -1.7e308)
	s.add(0.001, 1.7e308)
	s.add(0.002, 1e308)
	if st := s.stats(false); math.IsInf(st.SlopePerMin, 0) || st.SlopePerMin < 1e307 {
		t.Errorf("slope %g; want nearly the largest float64", st.SlopePerMin)
	}
}
