package wsload

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/loads"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestEchoAndSubscribersAsLoads: a group of two websocket loads on one
// clock, echo workers and held subscribers: each load's named figures
// are the server's counts of its part.
func TestEchoAndSubscribersAsLoads(t *testing.T) {
	s := startServer(t)
	reg := runners.MustRegistry(Kind(), loads.Kind(Kind()))
	var (
		wg        sync.WaitGroup
		delivered int64
	)
	wg.Go(func() {
		waitFor(t, 10*time.Second, "3 subscribers", func() bool { return s.subscribed() == 3 })
		for i := range 50 {
			delivered += s.broadcast("news " + strconv.Itoa(i))
		}
	})
	a := runnertest.RunPlan(t, reg, `
version: 1
groups:
  - id: both
    duration: 1s
    loads:
      - name: echo
        runner: websocket
        websocket: {url: "${URL}/echo", messages: [{text: ping}]}
        load: {concurrency: 2}
      - name: subs
        runner: websocket
        websocket: {url: "${URL}/broadcast", subscribe: {subscribers: 3, send: [join]}}
`, map[string]string{"URL": s.url("")})
	wg.Wait()
	st := a.Steps[0]
	echo, subs := st.ByName["echo"], st.ByName["subs"]
	if subs.Requests != delivered || delivered != 150 || echo.Requests == 0 || st.Errors != 0 {
		t.Fatalf("echo %d requests, subs %d, delivered %d; errors %d %v", echo.Requests, subs.Requests, delivered, st.Errors, st.ErrorKinds)
	}
	if st.Counters[CounterMessagesIn] != s.sent.Load() || st.Counters[CounterMessagesOut] != s.received.Load() {
		t.Errorf("counters %v; server sent %d, received %d", st.Counters, s.sent.Load(), s.received.Load())
	}
	if echo.Requests+3 != s.received.Load() {
		t.Errorf("echo requests %d + 3 joins, server received %d", echo.Requests, s.received.Load())
	}
}
