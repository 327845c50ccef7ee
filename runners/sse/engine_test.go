package sse

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/demo"
	"github.com/benchtui/benchtui/runners/runnertest"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// TestThroughEngine runs a reconnect storm through the engine: streams of
// 5 events at 50/s end after 100 ms and come back within 0.5 s (the
// first reconnect after events, drawn in [0, 500 ms]).
func TestThroughEngine(t *testing.T) {
	srv := httptest.NewServer(demo.SSEHandler(10))
	defer srv.Close()
	src := fmt.Sprintf(`version: 1
groups:
  - id: e
    runner: sse
    sse: {url: "%s/events?rate=50&limit=5", subscribers: 4, reconnect: true}
    duration: 1500ms
`, srv.URL)
	st := runnertest.RunPlan(t, testRegistry, src, nil).Steps[0]
	if st.Requests < 20 || st.Errors != 0 {
		t.Errorf("requests %d errors %d, want at least 4x5 events and no errors", st.Requests, st.Errors)
	}
	if st.Counters["disconnects"] < 4 || st.Counters["reconnects"] < 4 {
		t.Errorf("counters %v, want a disconnect and a reconnect per subscriber", st.Counters)
	}
	b, ok := st.ExtraMS["backoff"]
	if !ok || b.Max > 1.01*float64(BackoffMin/time.Millisecond) {
		t.Errorf("backoff extra %+v, want within [0, 500] ms", b)
	}
	if _, ok := st.ExtraMS["first_event"]; !ok {
		t.Error("no first_event extra")
	}
}

// TestFDsPerSubscriber holds 50 subscribers on a real server process that
// the step watches: its fd growth per subscriber is about one socket each,
// counted from before the streams opened to their peak.
func TestFDsPerSubscriber(t *testing.T) {
	helper := testbin.Build(t, "../spawn/testdata/helper")
	addr := testbin.FreeAddr(t)
	a := runnertest.RunAll(t, testRegistry, `version: 1
targets:
  srv: {command: ["${HELPER}", "-addr", "${ADDR}"], ready: "http://${ADDR}/healthz", sample: 250ms}
groups:
  - id: subs
    runner: sse
    target: srv
    sse: {url: "http://${ADDR}/events", subscribers: 50}
    duration: 2s
`, map[string]string{"HELPER": helper, "ADDR": addr})[0]
	st := a.Steps[0]
	if st.Target == nil || st.Target.FDsPerUnit < 0.8 || st.Target.FDsPerUnit > 1.6 {
		t.Fatalf("target %+v: want fds_per_unit within 0.8-1.6 for 50 subscribers", st.Target)
	}
	t.Logf("fds %+v, %.2f per subscriber", st.Target.FDs, st.Target.FDsPerUnit)
}
