package httpload

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
)

// hostileServer answers /huge with 50 MiB of event frames (with a
// Content-Length, or chunked with ?chunked=1) and /endless with frames
// until the client goes away (or 30 s).
func hostileServer(t *testing.T) string {
	chunk := []byte(strings.Repeat("data: x\n", 8<<10)) // 64 KiB
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		const huge = 50 << 20
		switch r.URL.Path {
		case "/huge":
			if r.URL.Query().Get("chunked") == "" {
				w.Header().Set("Content-Length", fmt.Sprint(huge))
			}
			for n := 0; n < huge; n += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "/endless":
			for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// hostileRequest asserts on a body and, with tally, counts its frames.
func hostileRequest(url string, tally bool) Request {
	yes := true
	r := Request{URL: url, Assert: []flow.Assert{{Body: "torn", Absent: &yes}, {JSON: "$.n", Absent: &yes}}}
	if tally {
		r.Tally = map[string]string{"frames": `(?m)^data: `}
	}
	return r
}

// hostileWorker is one worker of a runner of req with client and timeout.
func hostileWorker(t *testing.T, client string, timeout time.Duration, req Request) (runners.Worker, *runners.Recorder) {
	r := NewRunner(&Spec{Client: client, Timeout: plan.Duration{Duration: timeout}, Requests: []Request{req}})
	if err := r.Prepare(context.Background(), runners.NewStepEnv(&plan.Group{}, plan.Load{Concurrency: 1}, 0)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	rec := runners.NewRecorder()
	w, err := r.NewWorker(0, rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, rec
}

// TestAssertionsOnHostileBodies: a 50 MiB body is read to its end (the
// request succeeds, its assertions judged on the first MiB kept) without
// the worker allocating anything near the body's size. Both clients.
// Serial: the allocations are the process's, which a parallel test would
// add to.
func TestAssertionsOnHostileBodies(t *testing.T) {
	url := hostileServer(t)
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			for _, path := range []string{"/huge", "/huge?chunked=1"} {
				w, _ := hostileWorker(t, client, 30*time.Second, hostileRequest(url+path, false))
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				out := w.Do(context.Background())
				runtime.ReadMemStats(&after)
				// Without a tally: under -race, regexp's machine pool drops
				// machines, and a tally's every match would allocate one.
				if allocated := after.TotalAlloc - before.TotalAlloc; out.Err != "" || out.Status != 200 || allocated > 16<<20 {
					t.Errorf("%s: outcome %+v, %d MiB allocated; want 200, no error, far less than the body's 50 MiB", path, out, allocated>>20)
				}
			}
		})
	}
}

// TestTallyAndTimeoutOnHostileBodies: a tally counts the frames of a 50
// MiB body's first MiB (what is kept), and a body that never ends fails
// the request at its timeout. Both clients.
func TestTallyAndTimeoutOnHostileBodies(t *testing.T) {
	t.Parallel()
	url := hostileServer(t)
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			t.Parallel()
			w, rec := hostileWorker(t, client, 30*time.Second, hostileRequest(url+"/huge?chunked=1", true))
			out := w.Do(context.Background())
			frames := rec.Swap(artifacts.NewHistogram(), artifacts.NewHistogram()).Counters["frames"]
			if want := int64(flow.MaxBodyBytes / len("data: x\n")); out.Err != "" || frames != want {
				t.Errorf("tallied: outcome %+v, %d frames; want no error and the first MiB's %d", out, frames, want)
			}
			w, _ = hostileWorker(t, client, time.Second, hostileRequest(url+"/endless", true))
			start := time.Now()
			out = w.Do(context.Background())
			if took := time.Since(start); out.Err != "timeout" || took > 5*time.Second {
				t.Errorf("endless: %+v after %v; want a timeout at about 1s", out, took)
			}
		})
	}
}
