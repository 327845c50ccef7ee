//go:build unix

package shutdown

import (
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestThroughEngine checks that a shutdown step needs no duration: it ends
// with the target's exit, with the figures in the artifact; the exit does
// not stop it.
func TestThroughEngine(t *testing.T) {
	addr := freeAddr(t)
	plan := `version: 1
targets:
  helper: {command: ["${HELPER}", "-addr", "${ADDR}"], ready: "http://${ADDR}/healthz"}
groups:
  - id: sd
    target: helper
    runner: shutdown
    http: {requests: [{url: "http://${ADDR}/ping"}]}
    load: {concurrency: 2}
    shutdown: {after: 500ms, freeze: 3, freeze_url: "http://${ADDR}/slow?ms=600", grace: 5s}
`
	start := time.Now()
	arts := runnertest.RunAll(t, testRegistry, plan, map[string]string{"HELPER": helperBin, "ADDR": addr})
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the group took %s: the step did not end with its driver", d)
	}
	sd := arts[0].Steps[0]
	if arts[0].Run.Partial || sd.Counters[CounterFrozenInFlight] != 3 || sd.Counters[CounterDropped] != 0 {
		t.Errorf("shutdown step: partial %v, counters %v", arts[0].Run.Partial, sd.Counters)
	}
	if _, ok := sd.Counters[CounterRefused]; !ok || sd.Extra["exit_status"] != "exit 0" {
		t.Errorf("shutdown step: counters %v extra %v", sd.Counters, sd.Extra)
	}
	kinds := map[string]bool{}
	for _, e := range sd.Events {
		kinds[e.Kind] = true
	}
	if kinds[artifacts.EventStopped] {
		t.Errorf("shutdown events %v: the target's exit stopped the step", sd.Events)
	}
	for _, c := range sd.Checks {
		if !c.OK {
			t.Errorf("check failed: %+v", c)
		}
	}
	assertNoZombies(t)
}

// TestShutdownCountsSSEStreams: SSE subscribers held through the signal
// are counted as closed cleanly when the target drains (it ends each
// response) and as cut when it exits at once.
func TestShutdownCountsSSEStreams(t *testing.T) {
	for _, c := range []struct {
		flag       string
		clean, cut int64
	}{{"-drain=5s", 6, 0}, {"-abrupt", 0, 6}} {
		addr := freeAddr(t)
		plan := `version: 1
targets:
  helper: {command: ["${HELPER}", "-addr", "${ADDR}", "${FLAG}"], ready: "http://${ADDR}/healthz"}
groups:
  - id: sd
    target: helper
    runner: shutdown
    sse: {url: "http://${ADDR}/events", subscribers: 6}
    shutdown: {after: 600ms, grace: 5s}
`
		st := runnertest.RunAll(t, testRegistry, plan, map[string]string{"HELPER": helperBin, "ADDR": addr, "FLAG": c.flag})[0].Steps[0]
		if st.Counters["streams_closed_clean"] != c.clean || st.Counters["streams_cut"] != c.cut || st.Requests == 0 {
			t.Errorf("%s: %d events, counters %v; want %d closed clean and %d cut", c.flag, st.Requests, st.Counters, c.clean, c.cut)
		}
	}
	assertNoZombies(t)
}
