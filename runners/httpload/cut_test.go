package httpload

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestCutRequestsCanceled: requests still in flight when the step's
// grace ends (a route slower than the step) are counted as `canceled`,
// never as timeouts, and their cut latency stays out of the histogram
// and the percentiles, with every client.
func TestCutRequestsCanceled(t *testing.T) {
	for _, client := range mixClients {
		t.Run(client, func(t *testing.T) {
			t.Parallel()
			testCutRequestsCanceled(t, client)
		})
	}
}

func testCutRequestsCanceled(t *testing.T, client string) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // far longer than the step: only the cut ends it
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)
	p := runnertest.ParsePlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: cut
    runner: http
    http: {requests: [{url: "%s/slow"}], client: %s, timeout: 30s}
    load: {concurrency: 2}
    duration: 300ms
`, slow.URL, client), nil)
	s, err := engine.NewSession(testRegistry, p, p.Groups[0], engine.SessionOptions{Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	st := runnertest.RunSession(t, context.Background(), s).Steps[0]
	if st.ErrorKinds["canceled"] != 2 || st.ErrorKinds["timeout"] != 0 || st.ErrorKinds["cancelled"] != 0 {
		t.Errorf("error_kinds %v: want the 2 cut requests canceled", st.ErrorKinds)
	}
	if st.Requests != 2 || st.Errors != 2 {
		t.Errorf("requests %d, errors %d: want the 2 cut ones", st.Requests, st.Errors)
	}
	h, err := artifacts.DecodeHistogram(st.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalCount() != 0 || st.LatencyMS.Max != 0 || st.ServiceMS.Max != 0 {
		t.Errorf("histogram holds %d, latency max %.0f ms, service max %.0f ms: a cut request has no latency",
			h.TotalCount(), st.LatencyMS.Max, st.ServiceMS.Max)
	}
}
