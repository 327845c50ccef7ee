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
	t.Parallel()
	for _, client := range mixClients {
		t.Run(client, func(t *testing.T) {
			t.Parallel()
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
			// connections. Judged against the step's own most in flight at
			// once (in_flight.max): a connection is opened only when every
			// warm one is busy, so the server sees no more connections than
			// requests were ever in flight together, whatever bursts a busy
			// machine makes (82 connections for a peak of about 80 in a
			// whole -race suite; 3–12 alone). One per arrival, every one
			// finding a fresh worker, would be ~200.
			in := st.InFlight
			t.Logf("%d connections, %d requests, %d dropped, %.2fs, %v, in flight %+v", opened.Load(), st.Requests, st.Dropped, st.DurationS, st.ErrorKinds, in)
			if in == nil || st.Requests < 50 {
				t.Fatalf("in flight %v, %d requests: want the step's in-flight figures and some requests", in, st.Requests)
			}
			// The epoll client keeps a worker stack per event loop (one
			// per CPU): up to about twice the peak (31 for 23 measured).
			// A starved machine fills every slot (in_flight.max 400, 313
			// connections for 1,442 requests at load 14): then connections
			// being reused at all is what tells, at most one for two
			// requests (one per arrival would be one each).
			if n := opened.Load(); n > 2*in.Max+4 || n > st.Requests/2 {
				t.Errorf("%d connections for at most %d requests in flight at once (%d requests, %d dropped): want about as many", n, in.Max, st.Requests, st.Dropped)
			}
		})
	}
}
