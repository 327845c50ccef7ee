package runnertest

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// CountingServer starts an HTTP server on loopback that answers every
// request with 200 after delay and counts the requests it has answered;
// it is closed when the test ends.
func CountingServer(t testing.TB, delay time.Duration) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		time.Sleep(delay)
		served.Add(1)
	}))
	t.Cleanup(srv.Close)
	return srv, &served
}
