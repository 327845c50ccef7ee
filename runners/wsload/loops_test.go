package wsload

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestOpenLoopMatchesServer: an open loop's arrivals are messages the
// server received, each answered; every worker's connection closes with
// a handshake, so none is lost at the step's end.
func TestOpenLoopMatchesServer(t *testing.T) {
	s := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: open
    runner: websocket
    websocket:
      url: ${URL}
      messages: [{name: ping, text: 'ping {{seq}}'}]
    load: {rate: 200, max_in_flight: 8}
    duration: 1s
`, map[string]string{"URL": s.url("/echo")})
	st := a.Steps[0]
	if st.Errors != 0 || st.Requests < 100 || st.Requests != s.received.Load() || st.Counters[CounterMessagesOut] != st.Requests {
		t.Fatalf("requests %d (errors %d %v), messages out %d; server received %d", st.Requests, st.Errors, st.ErrorKinds, st.Counters[CounterMessagesOut], s.received.Load())
	}
	if st.Counters[CounterMessagesIn] != s.sent.Load() {
		t.Errorf("messages in %d, server sent %d", st.Counters[CounterMessagesIn], s.sent.Load())
	}
}

// TestSweepOpensConnectionsPerStep: a concurrency sweep's steps each hold
// their workers' connections: the server accepted as many as the steps'
// connects, and each step's figures are its own.
func TestSweepOpensConnectionsPerStep(t *testing.T) {
	s := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: sweep
    runner: websocket
    websocket:
      url: ${URL}
      messages: [{text: 'x'}]
    sweep: {concurrency: [1, 3]}
    iterations: 150
    max_duration: 60s
`, map[string]string{"URL": s.url("/echo")})
	if len(a.Steps) != 2 {
		t.Fatalf("%d steps, want 2", len(a.Steps))
	}
	for i, want := range []int64{1, 3} {
		st := a.Steps[i]
		if st.Requests != 150 || st.Errors != 0 || st.Counters[CounterConnects] != want {
			t.Errorf("step %d: requests %d, errors %d, connects %d; want 150, 0, %d", i, st.Requests, st.Errors, st.Counters[CounterConnects], want)
		}
	}
	if s.accepted.Load() != 4 || s.received.Load() != 300 {
		t.Errorf("server accepted %d, received %d; want 4, 300", s.accepted.Load(), s.received.Load())
	}
}

// TestShardsSplitTheWork: two shards of a counted run send the plan's
// iterations between them, their {{seq}} numbers striped: the server
// got each number once.
func TestShardsSplitTheWork(t *testing.T) {
	s := startServer(t)
	s.keep = true
	p := runnertest.ParsePlan(t, testRegistry, `
version: 1
groups:
  - id: shards
    runner: websocket
    websocket:
      url: ${URL}
      messages: [{text: 'n{{seq}}'}]
    load: {concurrency: 4}
    iterations: 400
    max_duration: 60s
`, map[string]string{"URL": s.url("/echo")})
	var wg sync.WaitGroup
	arts := make([]*artifacts.Artifact, 2)
	for i := range arts {
		sess, err := engine.NewSession(testRegistry, p, p.Groups[0], engine.SessionOptions{Shard: runners.Shard{Index: i, Count: 2}})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { arts[i] = runnertest.RunSession(t, context.Background(), sess) })
	}
	wg.Wait()
	total := arts[0].Steps[0].Requests + arts[1].Steps[0].Requests
	seen := map[string]bool{}
	for _, m := range s.textsWith("n") {
		seen[m] = true
	}
	if total != 400 || s.received.Load() != 400 || len(seen) != 400 {
		t.Fatalf("shards sent %d + %d, server received %d, %d distinct numbers; want 400 each", arts[0].Steps[0].Requests, arts[1].Steps[0].Requests, s.received.Load(), len(seen))
	}
	for m := range seen {
		if strings.TrimLeft(m[1:], "0123456789") != "" {
			t.Errorf("message %q", m)
		}
	}
}
