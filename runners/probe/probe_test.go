package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// counterServer serves a value that grows by one at every request, as
// JSON at /stats and as Prometheus text at /metrics.
func counterServer(t testing.TB) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"queue": {"pending": %d, "name": "q"}}`, n.Add(1))
	})
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		v := n.Add(1)
		fmt.Fprintf(w, `# HELP jobs_total Jobs.
# TYPE jobs_total counter
jobs_total{job="api"} %d
jobs_total{job="worker"} 1
# TYPE heap gauge
heap %d
# TYPE rpc summary
rpc{quantile="0.5"} 0.25
rpc{quantile="0.99"} %d
rpc_sum 9
rpc_count 3
# TYPE req histogram
req_bucket{le="0.1"} 2
req_bucket{le="+Inf"} 5
req_sum 1.5
req_count 5
`, v, 1000*v, v)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &n
}

// clockFrom is a Clock of real time since now.
func clockFrom(start time.Time) Clock {
	return func() (time.Duration, bool) { return time.Since(start), true }
}

// runSet reads specs for d and returns their figures.
func runSet(t *testing.T, specs []plan.Probe, d time.Duration) (map[string]artifacts.ProbeStats, map[string]string) {
	t.Helper()
	set := Start(context.Background(), specs, Options{Clock: clockFrom(time.Now())})
	time.Sleep(d)
	return set.Stop()
}

// runSetUntilRead reads specs until every probe has read (a sample or a
// gap) at least reads times, or limit passed, and returns their figures.
func runSetUntilRead(t *testing.T, specs []plan.Probe, reads int64, limit time.Duration) (map[string]artifacts.ProbeStats, map[string]string) {
	t.Helper()
	set := Start(context.Background(), specs, Options{Clock: clockFrom(time.Now())})
	for deadline := time.Now().Add(limit); time.Now().Before(deadline) && !allRead(set.Live(), reads); {
		time.Sleep(10 * time.Millisecond)
	}
	return set.Stop()
}

// allRead tells whether each probe has read at least reads times.
func allRead(live []Live, reads int64) bool {
	for _, l := range live {
		if l.Stats.Samples+l.Stats.Errors < reads {
			return false
		}
	}
	return true
}

func every(d time.Duration) plan.Duration { return plan.Duration{Duration: d} }

func TestHTTPJSONAndMetricProbesRise(t *testing.T) {
	srv, _ := counterServer(t)
	specs := []plan.Probe{
		{Name: "pending", Interval: every(100 * time.Millisecond), HTTP: &plan.ProbeHTTP{URL: srv.URL + "/stats", JSON: "$.queue.pending"}},
		{Name: "jobs", Interval: every(100 * time.Millisecond), Metric: &plan.ProbeMetric{URL: srv.URL + "/metrics", Name: "jobs_total", Labels: map[string]string{"job": "api"}}},
	}
	stats, errs := runSet(t, specs, 800*time.Millisecond)
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	for _, name := range []string{"pending", "jobs"} {
		s := stats[name]
		if s.Samples < 3 || s.Errors != 0 || len(s.Series) != int(s.Samples) {
			t.Fatalf("%s: %d samples, %d errors, %d points; want 3 or more reads, no errors", name, s.Samples, s.Errors, len(s.Series))
		}
		for i := 1; i < len(s.Series); i++ {
			if s.Series[i].Value <= s.Series[i-1].Value || s.Series[i].T < s.Series[i-1].T {
				t.Errorf("%s: series not rising at %d: %v", name, i, s.Series)
			}
		}
		if s.Last != s.Series[len(s.Series)-1].Value || s.Max != s.Last || s.Min != s.Series[0].Value || s.SlopePerMin <= 0 {
			t.Errorf("%s: min %g max %g last %g slope %g over %v", name, s.Min, s.Max, s.Last, s.SlopePerMin, s.Series)
		}
	}
}

func TestMetricAddressing(t *testing.T) {
	srv, _ := counterServer(t)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64 // -1: any positive value
		err    string
	}{
		{"heap", nil, -1, ""},
		{"rpc", map[string]string{"quantile": "0.5"}, 0.25, ""},
		{"rpc_sum", nil, 9, ""},
		{"rpc_count", nil, 3, ""},
		{"req_count", nil, 5, ""},
		{"req_sum", nil, 1.5, ""},
		{"req_bucket", map[string]string{"le": "0.1"}, 2, ""},
		{"jobs_total", nil, 0, "2 series of jobs_total"},
		{"jobs_total", map[string]string{"job": "nope"}, 0, "no series of jobs_total"},
		{"absent", nil, 0, "no metric absent"},
	} {
		r := newMetricReader(plan.ProbeMetric{URL: srv.URL + "/metrics", Name: c.name, Labels: c.labels})
		got, err := r.Read(context.Background())
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s%v: %g, %v; want an error with %q", c.name, c.labels, got, err, c.err)
			}
		case err != nil:
			t.Errorf("%s%v: %v", c.name, c.labels, err)
		case c.want >= 0 && got != c.want, c.want < 0 && got <= 0:
			t.Errorf("%s%v: got %g, want %g", c.name, c.labels, got, c.want)
		}
	}
}

func TestHugeMetricsPageIsRefused(t *testing.T) {
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		line := []byte("# padding padding padding padding padding padding padding padding\n")
		for range (10 << 20) / len(line) {
			n, err := w.Write(line)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
		fmt.Fprintln(w, "heap 1")
	}))
	t.Cleanup(srv.Close)
	r := newMetricReader(plan.ProbeMetric{URL: srv.URL, Name: "heap"})
	_, err := r.Read(context.Background())
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("a 10 MiB page: %v; want it refused", err)
	}
	srv.CloseClientConnections()
	// The reader stopped at the limit: far less than the page was taken.
	if got := sent.Load(); got >= 10<<20 {
		t.Errorf("the server wrote the whole page (%d bytes): the read did not stop at the limit", got)
	}
}

func TestHangingServerIsBoundedAndCounted(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	specs := []plan.Probe{{Name: "stuck", Interval: every(100 * time.Millisecond), Timeout: every(150 * time.Millisecond),
		HTTP: &plan.ProbeHTTP{URL: srv.URL, JSON: "$.n"}}}
	set := Start(context.Background(), specs, Options{Clock: clockFrom(time.Now())})
	time.Sleep(time.Second)
	stopped := make(chan struct{})
	var stats map[string]artifacts.ProbeStats
	var errs map[string]string
	go func() { stats, errs = set.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("Stop hung on a hanging server")
	}
	s := stats["stuck"]
	// About one read per 150 ms timeout in a second: bounded by the
	// timeout, each counted as an error and a gap.
	if s.Samples != 0 || s.Errors < 3 || s.Errors > 10 {
		t.Errorf("%d samples, %d errors; want none and about 6 errors", s.Samples, s.Errors)
	}
	for _, p := range s.Series {
		if !p.Gap {
			t.Errorf("a failed read is not a gap: %+v", p)
		}
	}
	if !strings.Contains(errs["stuck"], "deadline") {
		t.Errorf("last error %q; want a deadline", errs["stuck"])
	}
}

func TestCommandProbe(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q")
	if err := os.WriteFile(file, []byte("a\nb\nc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &commandReader{argv: []string{"sh", "-c", "wc -l < " + file}}
	if got, err := r.Read(context.Background()); err != nil || got != 3 {
		t.Fatalf("wc -l: %g, %v; want 3", got, err)
	}
	for _, c := range []struct {
		argv []string
		err  string
	}{
		{[]string{"sh", "-c", "echo many words"}, "not a number"},
		{[]string{"sh", "-c", "echo oops >&2; exit 3"}, "oops"},
		{[]string{"sh", "-c", "head -c 100000 /dev/zero | tr '\\0' 1"}, "refused"},
		{[]string{"/nonexistent/probe"}, "no such file"},
	} {
		r := &commandReader{argv: c.argv}
		if _, err := r.Read(context.Background()); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %v; want an error with %q", c.argv, err, c.err)
		}
	}
}

// TestCommandKilledAtTimeout: a command that outlives its timeout is
// killed with everything it started (a grandchild holding stdout too).
func TestCommandKilledAtTimeout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	r := &commandReader{argv: []string{"sh", "-c", "sleep 30 & echo $! > " + pidFile + "; sleep 30"}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := r.Read(ctx)
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("%v; want killed after the timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the read took %s: not bounded by its 300ms timeout", d)
	}
	assertGone(t, pidFile, "the killed probe")
}

// TestCommandLeavesNothingRunning: a command that puts a child in the
// background and exits (the read succeeds) leaves no child running.
func TestCommandLeavesNothingRunning(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	r := &commandReader{argv: []string{"sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $! > " + pidFile + "; echo 7"}}
	if got, err := r.Read(context.Background()); err != nil || got != 7 {
		t.Fatalf("read %g, %v; want 7", got, err)
	}
	assertGone(t, pidFile, "the probe's read")
}

// assertGone waits (up to 5 s) until the process whose pid is in pidFile
// has exited, naming after what it should have.
func assertGone(t *testing.T, pidFile, after string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d outlived %s", pid, after)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSeriesIsBounded(t *testing.T) {
	var s series
	s.init()
	for i := range 100_000 {
		if i%7 == 0 {
			s.gap(float64(i))
			continue
		}
		s.add(float64(i), float64(i%1000))
	}
	st := s.stats(true)
	if len(st.Series) > MaxPoints || len(st.Series) < MaxPoints/4 {
		t.Errorf("%d points; want at most %d and not far fewer", len(st.Series), MaxPoints)
	}
	if st.Min != 0 || st.Max != 999 || st.Last != 99_999%1000 || st.Errors != 14_286 || st.Samples != 100_000-14_286 {
		t.Errorf("min %g max %g last %g samples %d errors %d: not exact", st.Min, st.Max, st.Last, st.Samples, st.Errors)
	}
	for i := 1; i < len(st.Series); i++ {
		if st.Series[i].T <= st.Series[i-1].T {
			t.Fatalf("series out of order at %d", i)
		}
	}
}

func TestProbePointJSON(t *testing.T) {
	in := artifacts.ProbeStats{Samples: 1, Errors: 1, Series: []artifacts.ProbePoint{{T: 1, Value: 2.5}, {T: 2, Gap: true}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"series":[[1,2.5],[2,null]]`) {
		t.Errorf("JSON %s", b)
	}
	var out artifacts.ProbeStats
	if err := json.Unmarshal(b, &out); err != nil || len(out.Series) != 2 || !out.Series[1].Gap || out.Series[0].Value != 2.5 {
		t.Errorf("round trip: %+v, %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"series":[[1]]}`), &out); err == nil {
		t.Error("a one-element point was accepted")
	}
}

func TestErrorsAreRedacted(t *testing.T) {
	specs := []plan.Probe{{Name: "db", SQL: "SELECT 1", DSN: "postgres://u:hunter2secret@127.0.0.1:1/x?connect_timeout=1"}}
	set := Start(context.Background(), specs, Options{Clock: clockFrom(time.Now())})
	deadline := time.Now().Add(5 * time.Second)
	for set.Live()[0].Stats.Errors == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	_, errs := set.Stop()
	if errs["db"] == "" || strings.Contains(errs["db"], "hunter2secret") {
		t.Errorf("error %q: want one, without the password", errs["db"])
	}
}

// A probe's mean is of every read: against a server whose reply is the
// count of reads it served (1, 2, …, n), the mean is (n+1)/2 and the
// samples n, the server's own count.
func TestProbeMeanAndCountMatchTheServer(t *testing.T) {
	srv, served := counterServer(t)
	specs := []plan.Probe{{Name: "pending", Interval: every(100 * time.Millisecond), HTTP: &plan.ProbeHTTP{URL: srv.URL + "/stats", JSON: "$.queue.pending"}}}
	stats, errs := runSet(t, specs, 700*time.Millisecond)
	s := stats["pending"]
	n := served.Load()
	if len(errs) != 0 || s.Errors != 0 || n < 3 {
		t.Fatalf("%d reads served, errors %v (%d): want 3 or more reads and none failed", n, errs, s.Errors)
	}
	// The server counts 1, 2, 3…: the samples are its first reads, every
	// one but a last that may still have been in flight at the stop (8
	// served, 7 kept, in a whole -race suite).
	if (s.Samples != n && s.Samples != n-1) || s.Mean != float64(s.Samples+1)/2 {
		t.Errorf("samples %d, mean %g; the server served %d reads, so want %d or %d samples of mean (samples+1)/2", s.Samples, s.Mean, n, n-1, n)
	}
}
