package httpload

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestOpenLoopConnectionsMatchConcurrency: an open loop at a low rate
// with a high max_in_flight keeps about as many connections as requests
// in flight, not one per allowed worker: an arrival goes to the most
// recently idle worker, whose connection is warm. The server counts the
// connections it was opened.
func TestOpenLoopConnectionsMatchConcurrency(t *testing.T) {
	for _, client := range mixClients {
		t.Run(client, func(t *testing.T) {
			var opened atomic.Int64
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(2 * time.Millisecond)
			}))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					opened.Add(1)
				}
			}
			srv.Start()
			t.Cleanup(srv.Close)
			st := runGroup(t, fmt.Sprintf(`  - id: open
    runner: http
    http: {requests: [{url: "%s/"}], client: %s}
    load: {rate: 200, max_in_flight: 400}
    duration: 1s
`, srv.URL, client), nil).Steps[0]
			// About 0.4 requests in flight on average: a handful of
			// connections, with room for a busy machine's bursts and
			// an event loop's one per CPU; one per arrival (the 200 of the
			// step, every one finding a fresh worker) would be ~200.
			t.Logf("%d connections, %d requests, %d dropped, %.2fs, %v", opened.Load(), st.Requests, st.Dropped, st.DurationS, st.ErrorKinds)
			if n := opened.Load(); n > 80 || st.Requests < 50 {
				t.Errorf("%d connections for %d requests (%d dropped): want about the requests in flight", n, st.Requests, st.Dropped)
			}
		})
	}
}
