package loads_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/demo"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestTwoLoadsAtTheirOwnRates runs two open loops against two servers on
// one clock: each server saw exactly what its load recorded, the loads'
// figures add up to the step's, and their rates stand as 100 to 40.
func TestTwoLoadsAtTheirOwnRates(t *testing.T) {
	srvA, servedA := runnertest.CountingServer(t, 0)
	srvB, servedB := runnertest.CountingServer(t, 0)
	a := runnertest.RunPlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: two
    duration: 2s
    loads:
      - name: a
        runner: http
        http: {requests: [{url: "%s/a"}]}
        load: {rate: 100, max_in_flight: 20}
      - name: b
        runner: http
        http: {requests: [{url: "%s/b"}]}
        load: {rate: 40, max_in_flight: 20}
`, srvA.URL, srvB.URL), nil)
	st := a.Steps[0]
	la, lb := st.ByName["a"], st.ByName["b"]
	if la.Requests != servedA.Load() || lb.Requests != servedB.Load() {
		t.Errorf("recorded a=%d b=%d, servers saw a=%d b=%d", la.Requests, lb.Requests, servedA.Load(), servedB.Load())
	}
	t.Logf("a: %d sent, %d dropped; b: %d sent, %d dropped", la.Requests, la.Dropped, lb.Requests, lb.Dropped)
	assertLoadsAddUp(t, st, "a", "b")
	if lb.Requests == 0 {
		t.Fatalf("load b recorded nothing: %+v", st.ByName)
	}
	// Rates by ratio, never absolute: 100/40 = 2.5, arrivals and drops
	// both count what each schedule offered.
	if r := float64(la.Requests+la.Dropped) / float64(lb.Requests+lb.Dropped); r < 1.8 || r > 3.2 {
		t.Errorf("a/b offered %d/%d = %.2f, want about 2.5", la.Requests+la.Dropped, lb.Requests+lb.Dropped, r)
	}
	if a.Group.Runner != "loads" || st.Errors != 0 {
		t.Errorf("runner %q, errors %d %v", a.Group.Runner, st.Errors, st.ErrorKinds)
	}
	assertLoadsBack(t, a)
}

// TestHTTPBesideSSE runs a closed HTTP loop and SSE subscribers together:
// both record, each under its name, and the subscribers are the units.
func TestHTTPBesideSSE(t *testing.T) {
	srv, served := runnertest.CountingServer(t, 0)
	events := httptest.NewServer(demo.SSEHandler(10))
	defer events.Close()
	a := runnertest.RunPlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: mixed
    duration: 1500ms
    loads:
      - name: reads
        runner: http
        http: {requests: [{url: "%s/ping", name: ping}]}
        load: {concurrency: 2}
      - name: subscribers
        runner: sse
        sse: {url: "%s/events?rate=20", subscribers: 5}
`, srv.URL, events.URL), nil)
	st := a.Steps[0]
	reads, ping, subs := st.ByName["reads"], st.ByName["reads/ping"], st.ByName["subscribers"]
	if reads.Requests == 0 || reads.Requests != served.Load() || ping.Requests != reads.Requests || subs.Requests < 5 {
		t.Errorf("reads %d, reads/ping %d (server saw %d), subscribers %d events: %+v", reads.Requests, ping.Requests, served.Load(), subs.Requests, st.ByName)
	}
	t.Logf("reads/ping %d, subscribers %d events", reads.Requests, subs.Requests)
	assertLoadsAddUp(t, st, "reads", "subscribers")
	if st.Errors != 0 {
		t.Errorf("errors %d %v", st.Errors, st.ErrorKinds)
	}
	assertLoadsBack(t, a)
}

// TestNamedRequestKeepsItsLoadsFigures: a load whose request has a name
// keeps its own figures (its requests, errors, latency and drops) under
// the load's name, the request's beside them under LOAD/NAME; an open
// loop that drops arrivals makes no load entry of drops alone.
func TestNamedRequestKeepsItsLoadsFigures(t *testing.T) {
	srv, served := runnertest.CountingServer(t, 20*time.Millisecond)
	a := runnertest.RunPlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: named
    duration: 1s
    loads:
      - {name: a, runner: http, http: {requests: [{url: "%s/ping", name: ping}]}, load: {rate: 200, max_in_flight: 1}}
      - {name: b, runner: http, http: {requests: [{url: "%s/b"}]}, load: {concurrency: 1}}
`, srv.URL, srv.URL), nil)
	st := a.Steps[0]
	la, ping, lb := st.ByName["a"], st.ByName["a/ping"], st.ByName["b"]
	if la.Requests == 0 || la.Requests != ping.Requests || la.Requests+lb.Requests != served.Load() {
		t.Errorf("a %d requests, a/ping %d, b %d, server saw %d: want the load's figures beside its request's", la.Requests, ping.Requests, lb.Requests, served.Load())
	}
	if la.Dropped == 0 || la.LatencyMS.P50 < 20 || la.Histogram == "" {
		t.Errorf("a: %d dropped, p50 %.1f ms, histogram %q: want the load's drops and latency", la.Dropped, la.LatencyMS.P50, la.Histogram)
	}
	assertLoadsAddUp(t, st, "a", "b")
	assertLoadsBack(t, a)
}

// TestSweepAddressesOneLoad sweeps one load's rate: a step per value, the
// other load unchanged.
func TestSweepAddressesOneLoad(t *testing.T) {
	srv, _ := runnertest.CountingServer(t, 0)
	a := runnertest.RunPlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: sw
    duration: 1s
    sweep: {loads.fast.rate: [20, 80]}
    loads:
      - {name: fast, runner: http, http: {requests: [{url: "%s/f"}]}, load: {rate: 10, max_in_flight: 10}}
      - {name: slow, runner: http, http: {requests: [{url: "%s/s"}]}, load: {rate: 20, max_in_flight: 10}, iterations: 5}
`, srv.URL, srv.URL), nil)
	if len(a.Steps) != 2 || a.Steps[0].Label != "loads.fast.rate=20" {
		t.Fatalf("steps %d, first %q", len(a.Steps), a.Steps[0].Label)
	}
	// Arrivals per second of each step's own length: a starved machine
	// once ended the 80/s step 3 s late (304 arrivals against 53).
	lo, hi := a.Steps[0].ByName["fast"], a.Steps[1].ByName["fast"]
	loRate := float64(lo.Requests+lo.Dropped) / a.Steps[0].DurationS
	hiRate := float64(hi.Requests+hi.Dropped) / a.Steps[1].DurationS
	if r := hiRate / max(loRate, 1); r < 2.5 || r > 6 {
		t.Errorf("fast at 80/s vs 20/s: %.1f/s vs %.1f/s (%d in %.2f s, %d in %.2f s), ratio %.2f, want about 4",
			hiRate, loRate, hi.Requests+hi.Dropped, a.Steps[1].DurationS, lo.Requests+lo.Dropped, a.Steps[0].DurationS, r)
	}
	for _, st := range a.Steps {
		if n := st.ByName["slow"].Requests; n != 5 {
			t.Errorf("step %s: slow sent %d, want its 5 iterations", st.Label, n)
		}
	}
}

// assertLoadsAddUp checks that the loads' figures (the names without a
// "/": a load's named requests are LOAD/NAME beside it) are exactly names
// and that they add up to the step's requests, errors and drops.
func assertLoadsAddUp(t *testing.T, st artifacts.Step, names ...string) {
	t.Helper()
	var req, errs, dropped int64
	for _, n := range names {
		req += st.ByName[n].Requests
		errs += st.ByName[n].Errors
		dropped += st.ByName[n].Dropped
	}
	loads := 0
	for name := range st.ByName {
		if !strings.Contains(name, "/") {
			loads++
		}
	}
	if loads != len(names) || req != st.Requests || errs != st.Errors || dropped != st.Dropped {
		t.Errorf("by_name %v: %d requests, %d errors, %d dropped; step %d, %d, %d",
			st.ByName, req, errs, dropped, st.Requests, st.Errors, st.Dropped)
	}
}

// assertLoadsBack writes a and loads it back with every range check.
func assertLoadsBack(t *testing.T, a *artifacts.Artifact) {
	t.Helper()
	path, err := artifacts.Write(t.TempDir(), a)
	if err != nil {
		t.Fatal(err)
	}
	back, err := artifacts.Load(path)
	if err != nil {
		t.Fatalf("the run's own artifact does not load: %v", err)
	}
	for i, st := range back.Steps {
		for name, n := range st.ByName {
			if n.Requests != a.Steps[i].ByName[name].Requests || n.Dropped != a.Steps[i].ByName[name].Dropped {
				t.Errorf("step %d %s: %+v loaded back as %+v", i, name, a.Steps[i].ByName[name], n)
			}
		}
	}
}
