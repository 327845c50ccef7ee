package sse

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// silentServer accepts TCP connections on loopback and never answers:
// no status line, no headers. It counts what it accepted; the listener
// and every connection are closed when the test ends.
type silentServer struct {
	addr     string
	accepted atomic.Int64
}

func newSilentServer(t *testing.T) *silentServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &silentServer{addr: ln.Addr().String()}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return s
}

// TestSilentServerCountsAsErrors: subscribers of a server that accepts and
// never sends its headers used to count as 0 requests and 0 errors, so
// the step passed. Whether the step ends first (timeout 10s) or the
// connect timeout does (300ms), each is a timeout error and the error
// rate threshold fails.
func TestSilentServerCountsAsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, timeout string
		maxSeconds    float64
	}{
		{"step ends first", "10s", 2.5},
		// Without reconnects every subscriber has gone after its timeout,
		// which ends the step early.
		{"timeout first", "300ms", 2.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSilentServer(t)
			start := time.Now()
			a := runnertest.RunPlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: silent
    runner: sse
    sse: {url: "http://%s/events", subscribers: 5, timeout: %s}
    duration: 2s
    thresholds: {error_rate: 0}
`, srv.addr, tc.timeout), nil)
			took := time.Since(start)
			st := a.Steps[0]
			t.Logf("took %v; accepted %d; requests=%d errors=%d kinds=%v duration_s=%.3f", took, srv.accepted.Load(), st.Requests, st.Errors, st.ErrorKinds, st.DurationS)
			if srv.accepted.Load() != 5 {
				t.Errorf("the server accepted %d connections, want the 5 subscribers", srv.accepted.Load())
			}
			if st.Requests != 5 || st.Errors != 5 || st.ErrorKinds[kindTimeout] != 5 {
				t.Errorf("requests=%d errors=%d kinds=%v, want 5 timeouts", st.Requests, st.Errors, st.ErrorKinds)
			}
			if !a.Failed() {
				t.Errorf("checks %+v: want error_rate failed", st.Checks)
			}
			if st.DurationS > tc.maxSeconds {
				t.Errorf("measured %.3fs, want at most %.1fs", st.DurationS, tc.maxSeconds)
			}
		})
	}
}

// TestCutConnectsCountOnlyAfterWaiting: a connect cut by the step's end
// (before its 10 s connect timeout) is a timeout error once it has waited
// a second; one cut the moment it began is not (a ramp batch started just before
// the end is no fault of the server's).
func TestCutConnectsCountOnlyAfterWaiting(t *testing.T) {
	for _, lean := range []bool{true, false} {
		t.Run(fmt.Sprintf("lean=%v", lean), func(t *testing.T) {
			for _, wait := range []time.Duration{0, maxUnanswered + 200*time.Millisecond} {
				srv := newSilentServer(t)
				r := newRunner(t, Spec{URL: "http://" + srv.addr + "/events"})
				r.client.lean = lean
				h := newTestHost()
				stop := startDrive(t, r, h, 3)
				waitFor(t, "three connections", func() bool { return srv.accepted.Load() == 3 })
				time.Sleep(wait)
				stop()
				kinds, _, _ := h.snapshot()
				want := 0
				if wait > 0 {
					want = 3
				}
				if len(kinds) > 1 || kinds[kindTimeout] != want {
					t.Errorf("cut after %v: error kinds %v, want %d timeouts", wait, kinds, want)
				}
			}
		})
	}
}

// TestAbsurdSubscriberCountStops: starting a billion subscribers at once
// looks at the step's context between them, so a stopped step does not
// wait for them all to be started (about a minute per 100 million).
func TestAbsurdSubscriberCountStops(t *testing.T) {
	srv := newSilentServer(t)
	r := newRunner(t, Spec{URL: "http://" + srv.addr + "/events"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- r.drive(ctx, newTestHost(), 1_000_000_000) }()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("drive of a billion subscribers still starting them 10s after its context ended")
	}
	t.Logf("returned after %v; the server accepted %d", time.Since(start), srv.accepted.Load())
	_ = r.Close()
}
