package engine

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/httpload"
)

var httpRegistry = runners.MustRegistry(httpload.Kind())

func logEvents(t *testing.T, st artifacts.Step) {
	t.Helper()
	for _, e := range st.Events {
		t.Logf("t=%.3f %s: %s", e.T, e.Kind, e.Note)
	}
}

// An action with a condition (when:) runs once, at the first tick the
// figure meets its limit: the server's own count of the requests before
// the action's request reached it is at least the threshold (a request
// the step counted the server saw first), and at most the threshold
// plus a second of the load's rate and the requests in flight (the
// condition is read every 250 ms tick; a closed loop of 2 workers has no
// burst to catch up with). The step is 1,000 requests, however slow the
// machine. One that never holds is noted at the step's end.
func TestActionWhenFiresAfterCount(t *testing.T) {
	const workers = 2
	var embeds, all atomic.Int64
	var mu sync.Mutex
	seen := map[string][]int64{} // the mark's path -> the counts when it came
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/embed":
			embeds.Add(1)
			all.Add(1)
			time.Sleep(2 * time.Millisecond)
		case "/other":
			all.Add(1)
			time.Sleep(2 * time.Millisecond)
		default:
			mu.Lock()
			seen[r.URL.Path] = append(seen[r.URL.Path], embeds.Load(), all.Load())
			mu.Unlock()
		}
	}))
	defer srv.Close()
	src := fmt.Sprintf(`version: 1
groups:
  - id: W1
    runner: http
    http:
      requests:
        - {name: embed, url: "%[1]s/embed"}
        - {name: other, url: "%[1]s/other"}
    load: {concurrency: %[2]d}
    iterations: 1000
    actions:
      - {name: after embeds, when: {figure: by_name.embed.requests, ">=": 200}, http: {url: "%[1]s/mark-embeds"}}
      - {name: after all, when: {figure: requests, ">=": 400}, http: {url: "%[1]s/mark-all"}}
      - {name: never, when: {figure: errors, ">=": 1}, exec: ["true"]}
`, srv.URL, workers)
	a, _ := runPlan(t, httpRegistry, src)
	st := a.Steps[0]
	logEvents(t, st)
	rate := float64(st.Requests) / st.DurationS
	t.Logf("duration %.3f s, %d requests", st.DurationS, st.Requests)
	mu.Lock()
	defer mu.Unlock()
	for _, c := range []struct {
		path      string
		count     int // 0: the embeds' count, 1: all
		threshold float64
		share     float64 // of the rate
	}{{"/mark-embeds", 0, 200, 0.5}, {"/mark-all", 1, 400, 1}} {
		got := seen[c.path]
		if len(got) != 2 {
			t.Errorf("%s: the server saw %d marks, want one", c.path, len(got)/2)
			continue
		}
		n := float64(got[c.count])
		// Late by at most 4.5 s of the step's mean rate: a starved step's
		// rate is not even (at load 20, 167 requests in the tick after the
		// count at a mean of 148/s; at load 18, 348 embeds counted by the
		// server at the mark, 3.3 s of their mean rate), and 4.5 s still
		// tells a firing at the count from one at the step's end (500
		// embeds, 1000 in all).
		if n < c.threshold || n > c.threshold+rate*c.share*4.5+workers {
			t.Errorf("%s: the server had counted %v requests when the action came: want at least %v and at most 4.5 s worth (%v/s) more", c.path, n, c.threshold, rate*c.share)
		}
	}
	var held, never int
	for _, e := range eventsOf(st, artifacts.EventNote) {
		if !strings.Contains(e.Note, "never held") {
			held += strings.Count(e.Note, " held (")
		}
		if strings.Contains(e.Note, "action never not run: errors >= 1 never held (last 0)") {
			never++
		}
	}
	if held != 2 || never != 1 || len(eventsOf(st, artifacts.EventAction)) != 2 {
		t.Errorf("want two conditions held, two actions run and one never held")
	}
}

// A window during an action measures the operations due while it ran:
// the server is slow (30 ms) only while the action's own request holds a
// flag on (400 ms), so the window's p50 and p99 show the slowness and
// the step's p50 does not; the window's requests of 30 ms or more are the
// server's slow replies (but one per worker due before the window opened
// and received after the flag went on), and its fast ones the few at its
// edges: due after the action started but before its request set the
// flag, or after the flag went off but before the action's end was noted.
// The load is an open loop of 200 a second: a closed loop of 4 workers
// sent 126 fast requests in the 30 ms a starved machine took to deliver
// the action's request, more than the 52 slow ones.
func TestWindowDuringAction(t *testing.T) {
	var slow atomic.Bool
	var slowReplies atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/rotate":
			slow.Store(true)
			time.Sleep(400 * time.Millisecond)
			slow.Store(false)
		default:
			if slow.Load() {
				slowReplies.Add(1)
				time.Sleep(30 * time.Millisecond)
			}
		}
	}))
	defer srv.Close()
	const workers = 16 // max_in_flight: the requests that may straddle an edge
	src := fmt.Sprintf(`version: 1
groups:
  - id: W2
    runner: http
    http: {requests: [{url: "%[1]s/read"}]}
    load: {rate: 200, max_in_flight: %d}
    duration: 3s
    actions:
      - {at: 1s, name: rotate, http: {url: "%[1]s/rotate"}}
    windows:
      - {name: rotation, during: rotate}
    thresholds:
      checks:
        - {figure: windows.rotation.p99, ">=": 25ms}
        - {figure: windows.rotation.requests, ">": 0}
`, srv.URL, workers)
	a, _ := runPlan(t, httpRegistry, src)
	st := a.Steps[0]
	logEvents(t, st)
	w, ok := st.Windows["rotation"]
	if !ok {
		t.Fatalf("no window: %+v", st.Windows)
	}
	t.Logf("window %+v (the histogram aside: %d bytes); step p50 %.3f ms; the server's slow replies %d", windowShown(w), len(w.Histogram), st.LatencyMS.P50, slowReplies.Load())
	if w.Runs != 1 || w.During != "rotate" || w.FromS < 1 || w.ToS-w.FromS < 0.4 || w.ToS > st.DurationS {
		t.Errorf("window span: %+v", windowShown(w))
	}
	if w.LatencyMS.P99 < 30 || w.LatencyMS.P50 < 25 || st.LatencyMS.P50 > 10 {
		t.Errorf("window p50 %.1f ms, p99 %.1f ms (want the 30 ms replies); step p50 %.1f ms (want fast)", w.LatencyMS.P50, w.LatencyMS.P99, st.LatencyMS.P50)
	}
	n, slowIn := slowReplies.Load(), atLeast(t, w.Histogram, 30*time.Millisecond)
	if slowIn < n-workers || slowIn > n+workers || w.Errors != 0 {
		t.Errorf("window: %d requests of 30 ms or more, %d errors; the server's slow replies %d (want equal within %d: one per worker due before the window opened)", slowIn, w.Errors, n, workers)
	}
	if fast := w.Requests - slowIn; fast > max(2*workers, n/2) {
		t.Errorf("window: %d fast requests beside %d slow ones: want only those at its edges (before the flag was on, after it was off)", fast, slowIn)
	}
	for _, c := range st.Checks {
		if !c.OK {
			t.Errorf("check %s failed: %v %s", c.Name, c.Value, c.Note)
		}
	}
	if len(st.Checks) != 2 {
		t.Errorf("checks %+v", st.Checks)
	}
}

// atLeast counts the latencies of at least d in the encoded histogram.
func atLeast(t *testing.T, encoded string, d time.Duration) int64 {
	t.Helper()
	h, err := artifacts.DecodeHistogram(encoded)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, b := range h.Distribution() {
		if b.From >= d.Microseconds() {
			n += b.Count
		}
	}
	return n
}

func windowShown(w artifacts.WindowStep) artifacts.WindowStep {
	w.Histogram = ""
	return w
}

// flaky is a loopback HTTP server that an action stops: /stop replies,
// then 200 ms later closes the listener and every connection, and listens
// on the same address again 600 ms later.
type flaky struct {
	addr    string
	mu      sync.Mutex
	srv     *http.Server
	stopped atomic.Int64
	served  atomic.Int64
	done    sync.WaitGroup
}

func startFlaky(t *testing.T) *flaky {
	f := &flaky{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = l.Addr().String()
	f.serve(l)
	t.Cleanup(func() {
		f.done.Wait()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.srv.Close()
	})
	return f
}

func (f *flaky) serve(l net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(f.handle)}
	f.mu.Lock()
	f.srv = srv
	f.mu.Unlock()
	go func() { _ = srv.Serve(l) }()
}

func (f *flaky) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/stop" {
		f.served.Add(1)
		return
	}
	f.stopped.Add(1)
	f.done.Add(1)
	go func() {
		defer f.done.Done()
		time.Sleep(200 * time.Millisecond)
		f.mu.Lock()
		f.srv.Close()
		f.mu.Unlock()
		time.Sleep(600 * time.Millisecond)
		for range 50 { // the port was ours a moment ago
			if l, err := net.Listen("tcp", f.addr); err == nil {
				f.serve(l)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
}

// A window after an action measures the errors that followed it: every
// failed request of the step (the server down for 600 ms, from 200 ms
// after the stopping action's end) is one of the window's, but for a
// hundredth (requests due before the window opened, on a machine so busy
// that the action's end was noted 200 ms late), and requests after the
// server came back succeed again.
func TestWindowAfterStopErrors(t *testing.T) {
	t.Parallel()
	f := startFlaky(t)
	src := fmt.Sprintf(`version: 1
groups:
  - id: W3
    runner: http
    http: {requests: [{url: "http://%[1]s/read"}], timeout: 2s}
    load: {concurrency: 2}
    duration: 3s
    actions:
      - {at: 1s, name: kill, http: {url: "http://%[1]s/stop"}}
    windows:
      - {name: after_kill, after: kill, for: 1500ms}
    thresholds:
      checks:
        - {figure: windows.after_kill.errors, ">": 0}
`, f.addr)
	a, _ := runPlan(t, httpRegistry, src)
	st := a.Steps[0]
	logEvents(t, st)
	w := st.Windows["after_kill"]
	t.Logf("window %+v; step requests %d errors %d %v; served %d", windowShown(w), st.Requests, st.Errors, st.ErrorKinds, f.served.Load())
	if f.stopped.Load() != 1 {
		t.Fatalf("the server was stopped %d times", f.stopped.Load())
	}
	if st.Errors == 0 || w.Errors > st.Errors || float64(w.Errors) < 0.99*float64(st.Errors) {
		t.Errorf("window errors %d, step errors %d: want every error in the window", w.Errors, st.Errors)
	}
	if w.Runs != 1 || w.After != "kill" || w.FromS < 1 || w.ToS-w.FromS < 1.49 || w.ToS-w.FromS > 1.51 {
		t.Errorf("window span %+v: want 1.5 s from the action's end", windowShown(w))
	}
	if ok := w.Requests - w.Errors; ok <= 0 || ok >= st.Requests-st.Errors {
		t.Errorf("window: %d requests, %d errors: want some served after the restart, fewer than the step's %d", w.Requests, w.Errors, st.Requests-st.Errors)
	}
	if len(st.Checks) != 1 || !st.Checks[0].OK {
		t.Errorf("checks %+v", st.Checks)
	}
}
