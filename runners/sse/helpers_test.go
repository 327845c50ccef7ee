package sse

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/runnertest"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(envBenchServe); addr != "" {
		serveBenchChild(addr) // the benchmark's server process
		return
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(testbin.Exit))
}

// testRec keeps what it is given.
type testRec struct {
	runnertest.Recorder // extras and counters
	mu                  sync.Mutex
	lats                []time.Duration
	kinds               map[string]int
}

// Record keeps a flow step as an operation.
func (r *testRec) Record(due, sent, end time.Time, out runners.Outcome) {
	r.Observe(end.Sub(due), end.Sub(sent), out.Err)
}

func (r *testRec) Observe(lat, _ time.Duration, kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if kind != "" {
		r.kinds[kind]++
		return
	}
	r.lats = append(r.lats, lat)
}

// testHost is a step of one shared recorder.
type testHost struct {
	rec      testRec
	g        runners.Gate
	inFlight atomic.Int64
	units    atomic.Int64
	maxUnits atomic.Int64
}

func newTestHost() *testHost {
	h := &testHost{}
	h.rec.kinds = map[string]int{}
	return h
}

func (h *testHost) recorder(int) recorder { return &h.rec }
func (h *testHost) gate() *runners.Gate   { return &h.g }
func (h *testHost) addInFlight(d int)     { h.inFlight.Add(int64(d)) }
func (h *testHost) setUnits(n int) {
	h.units.Store(int64(n))
	if int64(n) > h.maxUnits.Load() {
		h.maxUnits.Store(int64(n))
	}
}

func (h *testHost) events() int {
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	return len(h.rec.lats)
}

func (h *testHost) snapshot() (kinds map[string]int, extras map[string][]time.Duration, counts map[string]int64) {
	h.rec.mu.Lock()
	kinds = maps.Clone(h.rec.kinds)
	h.rec.mu.Unlock()
	return kinds, h.rec.Extras(), h.rec.Counters()
}

// startDrive runs r with n subscribers until the returned stop is called;
// stop waits for Drive to return.
func startDrive(t *testing.T, r *Runner, h host, n int) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.drive(ctx, h, n) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
			_ = r.Close()
		})
	}
	t.Cleanup(stop)
	return stop
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// dropServer sends perConn events on each of its first drops connections
// and ends them (every other one abruptly); later connections are held
// open without events.
type dropServer struct {
	*httptest.Server
	perConn, drops int

	mu       sync.Mutex
	conns    int
	lastIDs  []string // Last-Event-ID of each request
	endedIDs map[string]bool
	started  []time.Time
}

func newDropServer(t *testing.T, perConn, drops int) *dropServer {
	s := &dropServer{perConn: perConn, drops: drops, endedIDs: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *dropServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	c := s.conns
	s.conns++
	s.lastIDs = append(s.lastIDs, r.Header.Get("Last-Event-ID"))
	s.started = append(s.started, time.Now())
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	if c >= s.drops {
		<-r.Context().Done()
		return
	}
	for k := 1; k <= s.perConn; k++ {
		fmt.Fprintf(w, ": comment\nid: %d-%d\nevent: tick\ndata: {\"n\":%d,\n", c, k, k)
		fmt.Fprintf(w, "data:  \"ts\": %d}\r\n\r\n", time.Now().UnixMilli())
		w.(http.Flusher).Flush()
	}
	s.mu.Lock()
	s.endedIDs[fmt.Sprintf("%d-%d", c, s.perConn)] = true
	s.mu.Unlock()
	if c%2 == 1 {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
		}
	}
}

func (s *dropServer) requests() (ids []string, ended map[string]bool, started []time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ended = map[string]bool{}
	for k, v := range s.endedIDs {
		ended[k] = v
	}
	return append([]string(nil), s.lastIDs...), ended, append([]time.Time(nil), s.started...)
}

func newRunner(t *testing.T, s Spec) *Runner {
	t.Helper()
	r, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
