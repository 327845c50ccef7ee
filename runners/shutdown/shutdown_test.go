//go:build unix

package shutdown

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/httpload"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
	"github.com/benchtui/benchtui/runners/watch"
)

// startHelper starts the helper server as a watched target on a free
// loopback port; it is stopped when the test ends.
func startHelper(t *testing.T, args ...string) (*watch.Process, string) {
	t.Helper()
	addr := freeAddr(t)
	p, err := watch.Start(context.Background(), watch.Config{
		Name:    "helper",
		Command: append([]string{helperBin, "-addr", addr}, args...),
		Ready:   "http://" + addr + "/healthz", LogDir: t.TempDir(), ReadyTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatalf("starting the helper: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("stopping the helper: %v", err)
		}
	})
	return p, addr
}

// shutdownStep runs one shutdown step against p and returns its outcome
// and the figures Finish added.
func shutdownStep(t *testing.T, p *watch.Process, addr string, freeze, workers int) (Result, *artifacts.Step) {
	t.Helper()
	return shutdownStepWith(t, p, addr, freeze, workers, 700, 5*time.Second)
}

// shutdownStepWith is shutdownStep with the frozen requests' duration and
// the grace given.
func shutdownStepWith(t *testing.T, p *watch.Process, addr string, freeze, workers, slowMS int, grace time.Duration) (Result, *artifacts.Step) {
	t.Helper()
	return shutdownSpecStep(t, p, addr, workers, &Spec{
		After: plan.Duration{Duration: 400 * time.Millisecond}, Freeze: freeze,
		FreezeURL: fmt.Sprintf("http://%s/slow?ms=%d", addr, slowMS), Grace: plan.Duration{Duration: grace},
	})
}

// shutdownSpecStep is shutdownStep with the section spec.
func shutdownSpecStep(t *testing.T, p *watch.Process, addr string, workers int, spec *Spec) (Result, *artifacts.Step) {
	t.Helper()
	load := &httpload.Spec{Requests: []httpload.Request{{URL: "http://" + addr + "/ping"}}}
	r, err := NewRunner(spec, load)
	if err != nil {
		t.Fatalf("NewRunner: %v", err)
	}
	defer r.Close()
	env := runners.NewStepEnv(&plan.Group{ID: "sd", Runner: "shutdown"}, plan.Load{Concurrency: workers}, 4)
	env.Target = p
	res := runnertest.DriveStep(t, context.Background(), r, env)
	return r.Outcome(), res
}

func check(res *artifacts.Step, name string) (artifacts.Check, bool) {
	for _, c := range res.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return artifacts.Check{}, false
}

func TestShutdownDrainingTarget(t *testing.T) {
	p, addr := startHelper(t)
	o, res := shutdownStep(t, p, addr, 5, 4)
	t.Logf("outcome %+v", o)
	if !o.Signaled || !o.ExitedInGrace || o.ExitStatus != "exit 0" {
		t.Fatalf("signalled %v, exited in grace %v, status %q", o.Signaled, o.ExitedInGrace, o.ExitStatus)
	}
	if o.DroppedInFlight != 0 || o.FrozenInFlight != 5 || o.CompletedAfterSignal < 5 {
		t.Errorf("dropped %d, frozen in flight %d, completed %d: want 0, 5, >= 5", o.DroppedInFlight, o.FrozenInFlight, o.CompletedAfterSignal)
	}
	if o.InFlightAtSignal != o.CompletedAfterSignal+o.DroppedInFlight {
		t.Errorf("in flight %d != completed %d + dropped %d", o.InFlightAtSignal, o.CompletedAfterSignal, o.DroppedInFlight)
	}
	// The frozen requests hold the target ~700 ms after the signal: the
	// workers' new connections meanwhile are refused, and counted apart.
	if o.RefusedAfterSignal == 0 {
		t.Errorf("no refusal counted while the target drained")
	}
	if o.TimeToExit < 200*time.Millisecond || o.TimeToExit > 3*time.Second {
		t.Errorf("time to exit %s, want about the 700 ms of the frozen requests", o.TimeToExit)
	}
	if c, ok := check(res, "dropped_in_flight == 0"); !ok || !c.OK {
		t.Errorf("check dropped_in_flight == 0: %+v (present %v)", c, ok)
	}
	if res.Counters[CounterRefused] != o.RefusedAfterSignal || res.Extra["exit_status"] != "exit 0" {
		t.Errorf("counters %v extra %v", res.Counters, res.Extra)
	}
	assertNoZombies(t)
}

// TestFreezeLeadShowsAFastEndpoint: a frozen batch sent freeze_lead
// (1 s) before the signal to an endpoint that is not slow is answered
// before it: none of the 5 is in flight at the signal, which is what a
// check on frozen_in_flight is there to catch (a lead of 1 s leaves a busy
// machine time to answer them).
func TestFreezeLeadShowsAFastEndpoint(t *testing.T) {
	p, addr := startHelper(t)
	o, _ := shutdownSpecStep(t, p, addr, 1, &Spec{
		After: plan.Duration{Duration: 1200 * time.Millisecond}, Freeze: 5, FreezeLead: plan.Duration{Duration: time.Second},
		FreezeURL: fmt.Sprintf("http://%s/slow?ms=0", addr), Grace: plan.Duration{Duration: 5 * time.Second},
	})
	t.Logf("outcome %+v", o)
	if o.Frozen != 5 || o.FrozenInFlight != 0 || !o.ExitedInGrace {
		t.Errorf("frozen %d, in flight at the signal %d, exited in grace %v: want 5 sent, none in flight", o.Frozen, o.FrozenInFlight, o.ExitedInGrace)
	}
}

func TestShutdownAbruptTarget(t *testing.T) {
	p, addr := startHelper(t, "-abrupt")
	o, res := shutdownStep(t, p, addr, 5, 2)
	t.Logf("outcome %+v", o)
	if !o.ExitedInGrace || o.ExitStatus != "exit 3" {
		t.Fatalf("exited in grace %v, status %q", o.ExitedInGrace, o.ExitStatus)
	}
	// Every frozen request was cut mid-request. The workers' requests in
	// flight mostly got their answer before the exit (the signal takes a
	// moment to land) or, on reused connections, were retried and refused,
	// which is not dropped work; now and then one is cut on its retry, and
	// that is dropped work too: at most one per worker.
	if o.DroppedInFlight < 5 || o.DroppedInFlight > 5+2 || o.FrozenInFlight != 5 {
		t.Errorf("dropped %d, frozen in flight %d: want 5 to 7, and 5", o.DroppedInFlight, o.FrozenInFlight)
	}
	if c, ok := check(res, "dropped_in_flight == 0"); !ok || c.OK || c.Value != float64(o.DroppedInFlight) {
		t.Errorf("check dropped_in_flight == 0: %+v (present %v)", c, ok)
	}
	assertNoZombies(t)
}

func TestShutdownGraceKills(t *testing.T) {
	p, addr := startHelper(t)
	o, res := shutdownStepWith(t, p, addr, 2, 1, 5000, 500*time.Millisecond)
	t.Logf("outcome %+v", o)
	if o.ExitedInGrace || o.ExitStatus != "signal killed" {
		t.Fatalf("exited in grace %v, status %q: want killed after the grace", o.ExitedInGrace, o.ExitStatus)
	}
	if o.TimeToExit < 500*time.Millisecond || o.TimeToExit > 3*time.Second {
		t.Errorf("time to exit %s, want just over the 500 ms grace", o.TimeToExit)
	}
	if c, ok := check(res, "exited within grace"); !ok || c.OK {
		t.Errorf("check exited within grace: %+v (present %v)", c, ok)
	}
	assertNoZombies(t)
}

func TestShutdownValidate(t *testing.T) {
	src := `version: 1
targets:
  api: {command: ["/bin/true"]}
groups:
  - id: sd
    runner: shutdown
    shutdown: {signal: SIGNOPE, freeze: 3, after: 1s, freeze_lead: 2s}
    http: {requests: [{url: "ftp://x"}]}
    load: {rate: 5, max_in_flight: 5}
  - id: ok
    runner: shutdown
    target: api
    shutdown: {signal: TERM, after: 1s, freeze: 2, freeze_url: "http://127.0.0.1:1/slow"}
    http: {requests: [{url: "http://127.0.0.1:1/ping"}]}
    load: {concurrency: 2}
`
	_, err := plan.ParsePlan("plan.yaml", []byte(src), func(string) (string, bool) { return "", false }, testRegistry)
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{"shutdown.signal", "shutdown.freeze_url", "shutdown.freeze_lead: 2s is longer than after (1s)", "group sd: target", "http.requests[0].url", "group sd: load"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %s:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "group ok") {
		t.Errorf("valid group reported:\n%v", err)
	}
}
