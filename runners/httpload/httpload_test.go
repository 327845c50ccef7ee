package httpload

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/runnertest"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// TestMain runs 4 tests at once: the parallel ones check counts and
// behaviour against loopback servers that mostly wait; the tests that
// judge time, rates or allocation stay serial (they run before the
// parallel ones start).
func TestMain(m *testing.M) {
	testbin.DefaultParallel(4)
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"))
}

// runGroup parses a one-group plan (group YAML indented under "groups:")
// and runs it through the engine.
func runGroup(t *testing.T, group string, vars map[string]string) *artifacts.Artifact {
	t.Helper()
	return runnertest.RunPlan(t, testRegistry, "version: 1\ngroups:\n"+group, vars)
}

func TestClosedLoopAccuracyAndCounts(t *testing.T) {
	for _, client := range mixClients {
		t.Run(client, func(t *testing.T) { testClosedLoopAccuracyAndCounts(t, client) })
	}
}

func testClosedLoopAccuracyAndCounts(t *testing.T, client string) {
	srv, served := runnertest.CountingServer(t, 20*time.Millisecond)
	a := runGroup(t, fmt.Sprintf(`  - id: acc
    runner: http
    http: {requests: [{url: "%s/x"}], client: %s}
    load: {concurrency: 4}
    duration: 1s
`, srv.URL, client), nil)
	st := a.Steps[0]
	t.Logf("p50 %.2fms requests %d", st.LatencyMS.P50, st.Requests)
	// Never below the server's 20 ms. Above it, a smoke test's room: on a
	// busy machine the scheduler adds to both ends (two CPU burners and
	// the race detector: 26 ms; a whole suite beside three other sessions
	// at load 20: 31 ms on one P), so the bound is 3x, which a latency
	// measured from the wrong moment (a worker's queue, the step's start)
	// passes by far. The engine's synctest tests judge accuracy exactly.
	if p50 := st.LatencyMS.P50; p50 < 20 || p50 > 60 {
		t.Errorf("p50 = %.2fms, want from the server's 20ms up to 3x it", p50)
	}
	if st.Requests != served.Load() || st.Errors != 0 {
		t.Errorf("requests=%d errors=%d, server served %d", st.Requests, st.Errors, served.Load())
	}
	// 4 workers with 20 ms each can do at most 200/s over the measured time
	// (plus one each finishing while draining); fewer on a busy machine.
	if limit := int64(st.DurationS*4/0.020) + 4; st.Requests > limit || st.Requests == 0 {
		t.Errorf("requests = %d in %.2fs, want at most %d", st.Requests, st.DurationS, limit)
	}
}

// TestOpenLoopAccuracyAndCounts: an open loop at 100/s against a server
// that answers in 20 ms: latency, measured from each arrival's due time,
// is the server's 20 ms (up to 3x it on a busy machine), the server
// served what the artifact counts, and the offered rate is the set one
// (sent plus dropped).
func TestOpenLoopAccuracyAndCounts(t *testing.T) {
	for _, client := range mixClients {
		t.Run(client, func(t *testing.T) {
			srv, served := runnertest.CountingServer(t, 20*time.Millisecond)
			st := runGroup(t, fmt.Sprintf(`  - id: open
    runner: http
    http: {requests: [{url: "%s/x"}], client: %s}
    load: {rate: 100, max_in_flight: 20}
    duration: 1s
`, srv.URL, client), nil).Steps[0]
			t.Logf("p50 %.2fms requests %d late %d dropped %d", st.LatencyMS.P50, st.Requests, st.Late, st.Dropped)
			// Latency is from the due time, so a generator that fell
			// behind (a whole -race suite on 2 cores: 36 of 266 arrivals
			// dropped, p50 30.5–63.7 ms) rightly adds its lateness: the
			// upper bound is judged only when it kept up (dropped under a
			// twentieth of the arrivals; under -race many are a little
			// late even on an idle machine); the server's 20 ms is a
			// floor either way.
			// (3x, as the closed loop's: at load 20, 41.8 ms with 177
			// of 224 late and 4 dropped.)
			behind := st.Dropped > (st.Requests+st.Dropped)/20
			if p50 := st.LatencyMS.P50; p50 < 20 || (!behind && p50 > 60) {
				t.Errorf("p50 = %.2fms, want from the server's 20ms up to 3x it (late %d, dropped %d)", p50, st.Late, st.Dropped)
			}
			if st.Requests != served.Load() || st.Errors != 0 {
				t.Errorf("requests=%d errors=%d dropped=%d, server served %d", st.Requests, st.Errors, st.Dropped, served.Load())
			}
			if math.Abs(st.OfferedRPS/100-1) > 0.05 {
				t.Errorf("offered %.1f/s, want the set 100/s", st.OfferedRPS)
			}
		})
	}
}

// TestOpenLoopSeesStalls: a server that stalls 0.5 s in every 2.5 s, once
// in the 3 s step (a stall in every 1.5 s left net/http's p50 at 129 ms:
// the late arrivals after one stall ran into the next). A
// closed loop would wait politely and hide the stall (coordinated
// omission); an open loop keeps sending, so p99 shows it and p50 does not.
func TestOpenLoopSeesStalls(t *testing.T) {
	for _, client := range mixClients {
		t.Run(client, func(t *testing.T) { testOpenLoopSeesStalls(t, client) })
	}
}

func testOpenLoopSeesStalls(t *testing.T, client string) {
	start := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		phase := time.Since(start) % (2500 * time.Millisecond)
		if phase >= 2*time.Second {
			time.Sleep(2500*time.Millisecond - phase)
		}
	}))
	t.Cleanup(srv.Close)
	st := runGroup(t, fmt.Sprintf(`  - id: stall
    runner: http
    http: {requests: [{url: "%s/"}], client: %s}
    load: {rate: 100, max_in_flight: 200}
    duration: 3s
`, srv.URL, client), nil).Steps[0]
	if st.LatencyMS.P99 < 350 {
		t.Errorf("p99 = %.1fms, want above 350ms: the stall must show", st.LatencyMS.P99)
	}
	// A busy machine slows every request; the median stays far below the
	// stall, which is what the test is about.
	if st.LatencyMS.P50 > st.LatencyMS.P99/5 {
		t.Errorf("p50 = %.1fms, p99 = %.1fms: want a median far below the stall", st.LatencyMS.P50, st.LatencyMS.P99)
	}
	// The stall itself drops nothing: 200 may be in flight and the stall
	// holds about 50, so every arrival is sent or dropped, 100 a second of
	// the step's own length, and nearly all are sent. Drops are the stop's
	// (an arrival due in its last moment) and a starved machine's (a whole
	// suite beside three other sessions at load 20: the server slowed too,
	// 200 in flight, 55 of 960 arrivals dropped over a 5 s step that ran long),
	// which this test is not about.
	if st.InFlight == nil {
		t.Fatal("no in_flight figures")
	}
	arrivals := st.Requests + st.Dropped
	t.Logf("requests=%d dropped=%d late=%d in_flight.max=%d duration_s=%.2f", st.Requests, st.Dropped, st.Late, st.InFlight.Max, st.DurationS)
	if rate := float64(arrivals) / st.DurationS; rate < 90 || rate > 110 || st.Dropped > arrivals/10 {
		t.Errorf("requests=%d dropped=%d in %.2f s (%.1f/s): want the set 100/s, nearly all sent",
			st.Requests, st.Dropped, st.DurationS, rate)
	}
}

// clients are the two HTTP/1.1 clients every behaviour test runs with.
var clients = []string{"auto", "net/http"}

// mixClients are the clients the tests of request mixes run with: on
// Linux client: epoll too (epoll_linux_test.go).
var mixClients = []string{"auto", "net/http"}

func TestErrorKinds(t *testing.T) {
	t.Parallel()
	for _, client := range mixClients {
		t.Run(client, func(t *testing.T) { testErrorKinds(t, client) })
	}
}

// testErrorKinds draws each request of five at random: 8 workers, where 2
// made 27 requests in a busy suite, none of them the 500 (0.8^27, 0.2 %
// of such runs; at 8 workers about 0.8^100).
func testErrorKinds(t *testing.T, client string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/500":
			w.WriteHeader(500)
		case "/404":
			w.WriteHeader(404)
		case "/slow":
			time.Sleep(300 * time.Millisecond)
		}
	}))
	t.Cleanup(srv.Close)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	st := runGroup(t, fmt.Sprintf(`  - id: errs
    runner: http
    http:
      timeout: 100ms
      client: %[3]s
      requests:
        - {url: "%[1]s/500"}
        - {url: "%[1]s/404"}
        - {url: "%[1]s/ok", expect_status: [201]}
        - {url: "%[1]s/slow"}
        - {url: "http://%[2]s/"}
    load: {concurrency: 8}
    duration: 1s
`, srv.URL, closed, client), nil).Steps[0]
	for _, k := range []string{"status_5xx", "status_4xx", "unexpected_status", "timeout", "refused"} {
		if st.ErrorKinds[k] == 0 {
			t.Errorf("no %s error in %v", k, st.ErrorKinds)
		}
	}
	if st.Errors != st.Requests {
		t.Errorf("errors=%d of %d requests, want all failed", st.Errors, st.Requests)
	}
}

func TestKeepAliveReusesAndFreshReconnects(t *testing.T) {
	t.Parallel()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	type setting struct {
		conn, client string
		few          bool
	}
	var settings []setting
	for _, client := range mixClients {
		settings = append(settings, setting{"keep-alive", client, true}, setting{"fresh", client, false})
	}
	for _, c := range settings {
		conns.Store(0)
		st := runGroup(t, fmt.Sprintf(`  - id: c
    runner: http
    http: {connection: %s, client: %s, requests: [{url: "%s/"}]}
    load: {concurrency: 8}
    duration: 500ms
`, c.conn, c.client, srv.URL), nil).Steps[0]
		n := conns.Load()
		if c.few && n > 16 || !c.few && n < st.Requests/2 {
			t.Errorf("%s/%s: %d connections for %d requests", c.conn, c.client, n, st.Requests)
		}
	}
}

func TestSecretsStayOut(t *testing.T) {
	var sawAuth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAuth.Store(r.Header.Get("Authorization"))
	}))
	t.Cleanup(srv.Close)
	a := runGroup(t, fmt.Sprintf(`  - id: sec
    runner: http
    http: {requests: [{url: "%s/?k=${API_KEY}", headers: {Authorization: "Bearer ${API_TOKEN}"}}]}
    load: {concurrency: 1}
    duration: 200ms
`, srv.URL), map[string]string{"API_TOKEN": "tok-123456", "API_KEY": "key-abcdef"})
	if sawAuth.Load() != "Bearer tok-123456" {
		t.Fatalf("server saw Authorization %q", sawAuth.Load())
	}
	dir := t.TempDir()
	path, err := artifacts.Write(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := artifacts.Load(path)
	raw := fmt.Sprintf("%+v", data)
	for _, secret := range []string{"tok-123456", "key-abcdef"} {
		if strings.Contains(raw, secret) {
			t.Errorf("artifact contains %s", secret)
		}
	}
}

// TestHTTP2OverTLSAndH2C: protocol h2 speaks HTTP/2 over TLS and h2c
// speaks it in the clear; the server sees every request as HTTP/2.
func TestHTTP2OverTLSAndH2C(t *testing.T) {
	t.Parallel()
	var h1, h2 atomic.Int64
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			h2.Add(1)
		} else {
			h1.Add(1)
		}
	})
	tlsSrv := httptest.NewUnstartedServer(handler)
	tlsSrv.EnableHTTP2 = true
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	clear := httptest.NewUnstartedServer(handler)
	clear.Config.Protocols = new(http.Protocols)
	clear.Config.Protocols.SetHTTP1(true)
	clear.Config.Protocols.SetUnencryptedHTTP2(true)
	clear.Start()
	t.Cleanup(clear.Close)
	for _, c := range []struct{ proto, url string }{{"h2", tlsSrv.URL}, {"h2c", clear.URL}} {
		h1.Store(0)
		h2.Store(0)
		st := runGroup(t, fmt.Sprintf(`  - id: %[1]s
    runner: http
    http: {protocol: %[1]s, insecure_skip_verify: true, requests: [{url: "%[2]s/"}]}
    load: {concurrency: 4}
    duration: 300ms
`, c.proto, c.url), nil).Steps[0]
		if st.Errors != 0 || h1.Load() != 0 || h2.Load() != st.Requests || st.Requests == 0 {
			t.Errorf("%s: %d requests (%d errors %v); server saw %d HTTP/2, %d HTTP/1", c.proto, st.Requests, st.Errors, st.ErrorKinds, h2.Load(), h1.Load())
		}
	}
}

// TestOverloadReportsWhatTheServerServed: an open loop at twice what a
// server can serve (two at a time, 20 ms each: 100/s) reports the rate the
// server itself saw per second as throughput, within 10%, and the set rate
// as offered. The 100 requests queued at the end finish in the drain: counted
// in the window they would add a third.
func TestOverloadReportsWhatTheServerServed(t *testing.T) {
	t.Parallel()
	for _, client := range mixClients {
		t.Run(client, func(t *testing.T) { testOverloadReportsWhatTheServerServed(t, client) })
	}
}

func testOverloadReportsWhatTheServerServed(t *testing.T, client string) {
	var (
		slots = make(chan struct{}, 2)
		mu    sync.Mutex
		done  []time.Time // bounded by the plan: at most 3 s at 200/s
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slots <- struct{}{}
		time.Sleep(20 * time.Millisecond)
		<-slots
		mu.Lock()
		done = append(done, time.Now())
		mu.Unlock()
	}))
	defer srv.Close()
	st := runGroup(t, fmt.Sprintf(`  - id: over
    runner: http
    http: {requests: [{url: "%s/x"}], client: %s}
    load: {rate: 200, max_in_flight: 100}
    duration: 3s
`, srv.URL, client), nil).Steps[0]
	mu.Lock()
	perSecond := countPerSecond(done)
	served := int64(len(done))
	mu.Unlock()
	if st.Requests != served {
		t.Errorf("artifact counts %d requests (errors %v), the server served %d", st.Requests, st.ErrorKinds, served)
	}
	// An average of the window lies within the server's slowest and
	// fastest whole second (5% room for the seconds' edges); on a busy
	// machine those spread, counting the drain still exceeds them.
	if len(perSecond) < 2 || st.ThroughputRPS < 0.95*slices.Min(perSecond) || st.ThroughputRPS > 1.05*slices.Max(perSecond) {
		t.Errorf("throughput %.1f/s, the server's seconds %v: want within their range", st.ThroughputRPS, perSecond)
	}
	if math.Abs(st.OfferedRPS/200-1) > 0.02 || st.Dropped == 0 {
		t.Errorf("offered %.1f/s with %d dropped, want the set 200/s and drops", st.OfferedRPS, st.Dropped)
	}
}

// countPerSecond counts times by whole seconds since the first, leaving
// out the last, partial second.
func countPerSecond(ts []time.Time) []float64 {
	if len(ts) == 0 {
		return nil
	}
	var out []float64
	for _, t := range ts {
		i := int(t.Sub(ts[0]) / time.Second)
		for len(out) <= i {
			out = append(out, 0)
		}
		out[i]++
	}
	return out[:len(out)-1]
}
