package wsload

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestSubscribersCountBroadcast: subscribers held for the step count
// exactly the messages the server delivered, their subscription messages
// are the server's received ones, and their lag is read from the ts.
func TestSubscribersCountBroadcast(t *testing.T) {
	s := startServer(t)
	var (
		wg        sync.WaitGroup
		delivered int64
	)
	wg.Go(func() {
		waitFor(t, 10*time.Second, "5 subscribers", func() bool { return s.subscribed() == 5 })
		for i := range 100 {
			ts := strconv.FormatInt(time.Now().Add(-50*time.Millisecond).UnixMilli(), 10)
			delivered += s.broadcast(`{"i":` + strconv.Itoa(i) + `,"ts":` + ts + `}`)
		}
	})
	p := runnertest.ParsePlan(t, testRegistry, `
version: 1
groups:
  - id: subs
    runner: websocket
    websocket:
      url: ${URL}
      subscribe: {subscribers: 5, send: ['{"op": "subscribe", "n": {{seq}}}']}
    duration: 1500ms
    thresholds:
      checks: [{figure: counters.messages_in, "==": 500}, {figure: extra.connect.max, "<": 5000}]
`, map[string]string{"URL": s.url("/broadcast")})
	a := runSession(t, p)
	wg.Wait()
	st := a.Steps[0]
	c := st.Counters
	if delivered != 500 || c[CounterMessagesIn] != delivered || st.Requests != delivered || st.Errors != 0 {
		t.Fatalf("delivered %d, counted %d messages, %d requests, %d errors %v", delivered, c[CounterMessagesIn], st.Requests, st.Errors, st.ErrorKinds)
	}
	if c[CounterMessagesOut] != 5 || s.received.Load() != 5 || c[CounterConnects] != 5 || c[CounterBytesIn] != s.bytesOut.Load() {
		t.Errorf("counters %v; server received %d, sent %d bytes", c, s.received.Load(), s.bytesOut.Load())
	}
	if m := st.LatencyMS.Max; m < 50 || m > 10_000 {
		t.Errorf("max latency %.1f ms; the messages' ts said 50 ms ago", m)
	}
	for _, ch := range st.Checks {
		if !ch.OK {
			t.Errorf("check %s failed: %+v", ch.Name, ch)
		}
	}
}

// TestSubscribersReconnectAfterCloseCodes: a server that closes every
// connection with 1011 after 3 messages: each loss is an error of kind
// close_1011 and a disconnect, each new connection a reconnect after a
// backoff, and the messages are the server's.
func TestSubscribersReconnectAfterCloseCodes(t *testing.T) {
	s := startServer(t)
	r, env := newDriven(t, `
version: 1
groups:
  - id: drop
    runner: websocket
    websocket:
      url: ${URL}
      subscribe: {subscribers: 4, reconnect: true, ramp: 2/100ms}
    duration: 1s
`, map[string]string{"URL": s.url("/drop?after=3&code=1011")})
	r.backoffMin, r.backoffMax = 5*time.Millisecond, 20*time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	runnertest.DriveStep(t, ctx, r, env)
	counts, kinds, requests := stepCounts(env)
	t.Logf("counters %v, kinds %v, requests %d; server accepted %d, sent %d", counts, kinds, requests, s.accepted.Load(), s.sent.Load())
	if counts[CounterConnects] < 20 || counts[CounterReconnects] != counts[CounterConnects]-4 {
		t.Errorf("connects %d, reconnects %d; want many, reconnects = connects - 4", counts[CounterConnects], counts[CounterReconnects])
	}
	if d := counts[CounterDisconnects]; kinds["close_1011"] != d || d < counts[CounterConnects]-4 || d > counts[CounterConnects] {
		t.Errorf("close_1011 errors %d, disconnects %d, connects %d", kinds["close_1011"], d, counts[CounterConnects])
	}
	if got, sent := counts[CounterMessagesIn], s.sent.Load(); got > sent || got < sent-12 || got < 3*counts[CounterDisconnects] {
		t.Errorf("messages in %d, server sent %d", got, sent)
	}
	if requests != counts[CounterMessagesIn]+kinds["close_1011"] {
		t.Errorf("requests %d: want the messages and the losses", requests)
	}
}

// newDriven builds a subscribe group's runner and a step of it, to drive
// directly (tests shorten its backoff).
func newDriven(t *testing.T, yaml string, vars map[string]string) (*subRunner, *runners.StepEnv) {
	p := runnertest.ParsePlan(t, testRegistry, yaml, vars)
	g := p.Groups[0]
	rr, err := newKind(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rr.Close() })
	return rr.(*subRunner), runners.NewStepEnv(g, g.Load, 1)
}

// stepCounts are the counters, error kinds and operations a step's
// recorders hold; it empties them, as the engine's ticks do.
func stepCounts(env *runners.StepEnv) (map[string]int64, map[string]int64, int64) {
	counts, kinds, requests := map[string]int64{}, map[string]int64{}, int64(0)
	for _, rec := range env.Recorders() {
		iv := rec.Swap(artifacts.NewHistogram(), artifacts.NewHistogram())
		for k, v := range iv.Counters {
			counts[k] += v
		}
		for k, v := range iv.Kinds {
			kinds[k] += v
		}
		requests += iv.Requests
	}
	return counts, kinds, requests
}

// runSession runs the plan's first group through a session of its own.
func runSession(t *testing.T, p *plan.Plan) *artifacts.Artifact {
	t.Helper()
	s, err := engine.NewSession(testRegistry, p, p.Groups[0], engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return runnertest.RunSession(t, context.Background(), s)
}

// TestLiveFiguresWhileHeld: while the step runs, the session's snapshots
// show the held subscribers in flight and their messages counted, ahead
// of the artifact.
func TestLiveFiguresWhileHeld(t *testing.T) {
	s := startServer(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
				s.broadcast("tick")
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()
	p := runnertest.ParsePlan(t, testRegistry, `
version: 1
groups:
  - id: live
    runner: websocket
    websocket:
      url: ${URL}
      subscribe: {subscribers: 3, send: [join]}
    duration: 1500ms
`, map[string]string{"URL": s.url("/broadcast")})
	sess, err := engine.NewSession(testRegistry, p, p.Groups[0], engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sess.Start(context.Background())
	maxInFlight, liveMessages := 0, int64(0)
	for snap := range sess.Snapshots() {
		if snap.State == engine.StateRunning {
			maxInFlight = max(maxInFlight, snap.InFlight)
			liveMessages = max(liveMessages, snap.Counters[CounterMessagesIn])
		}
	}
	<-sess.Done()
	if err := sess.Err(); err != nil {
		t.Fatal(err)
	}
	final := sess.Result().Steps[0].Counters[CounterMessagesIn]
	t.Logf("live: in flight %d, messages %d; final messages %d", maxInFlight, liveMessages, final)
	if maxInFlight != 3 || liveMessages == 0 || liveMessages > final {
		t.Errorf("live: in flight %d (want 3), messages %d (final %d)", maxInFlight, liveMessages, final)
	}
}

// TestSourcesSpreadConnections: 4 subscribers from sources 127.0.0.2/31
// come to the server from both addresses, two each; a source not of this
// machine is refused when the runner is built.
func TestSourcesSpreadConnections(t *testing.T) {
	s := startServer(t)
	p := runnertest.ParsePlan(t, testRegistry, `
version: 1
groups:
  - id: subs
    runner: websocket
    websocket:
      url: ${URL}
      sources: [127.0.0.2/31]
      subscribe: {subscribers: 4, send: ['{"op": "subscribe"}']}
    duration: 500ms
`, map[string]string{"URL": s.url("/broadcast")})
	runSession(t, p)
	s.mu.Lock()
	from := maps.Clone(s.from)
	s.mu.Unlock()
	if from["127.0.0.2"] != 2 || from["127.0.0.3"] != 2 || len(from) != 2 {
		t.Errorf("connections by source address %v, want 2 from each of 127.0.0.2 and .3", from)
	}
	probs := (&Spec{URL: "ws://x/", Sources: []string{"example.com"}}).problems()
	if !slices.ContainsFunc(probs, func(p flow.Problem) bool {
		return p.Key == "sources" && strings.Contains(p.Msg, `[0] "example.com": want an IP address or a CIDR block`)
	}) {
		t.Errorf("sources [example.com]: problems %v", probs)
	}
	g := p.Groups[0]
	plan.Section[Spec](g, Section).Sources = []string{"192.0.2.7"} // TEST-NET-1: bound, never sent to
	if _, err := Kind().New(g, &runners.RunEnv{}); err == nil || !strings.Contains(err.Error(), "sources: 192.0.2.7 is not an address of this machine") {
		t.Errorf("a foreign source: %v", err)
	}
}
