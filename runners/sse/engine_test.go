package sse

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/demo"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestThroughEngine runs a reconnect storm through the engine: streams of
// 5 events at 50/s end after 100 ms and come back after 0.5 to 1 s.
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
	if !ok || b.P50 < float64(BackoffMin/time.Millisecond) || b.Max > float64(2*BackoffMin/time.Millisecond) {
		t.Errorf("backoff extra %+v, want within [500, 1000] ms", b)
	}
	if _, ok := st.ExtraMS["first_event"]; !ok {
		t.Error("no first_event extra")
	}
}
