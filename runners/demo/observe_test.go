package demo

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest/testbin"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// metricValue scrapes url and returns the named gauge's value.
func metricValue(t *testing.T, url, name string) float64 {
	t.Helper()
	_, body := get(t, http.MethodGet, url, "")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	f := families[name]
	if f == nil || len(f.Metric) == 0 {
		t.Fatalf("%s has no %s", url, name)
	}
	if c := f.Metric[0].GetCounter(); c != nil {
		return c.GetValue()
	}
	return f.Metric[0].GetGauge().GetValue()
}

// TestSessionsAreSweptAndWarnPastTheDedupCap: 6 sessions past a dedup cap
// of 4 log 2 WARN lines; after the TTL, the next session's sweep removes
// the idle ones, logs it, and /metrics follows the live count.
func TestSessionsAreSweptAndWarnPastTheDedupCap(t *testing.T) {
	var logs testbin.Buffer
	ttl := 200 * time.Millisecond
	srv := httptest.NewServer(NewHandlerWith(Options{Log: &logs, Sessions: SessionOptions{TTL: ttl, KB: 4, DedupCap: 4}}))
	defer srv.Close()
	for range 6 {
		if code, _ := get(t, http.MethodPost, srv.URL+"/session", "{}"); code != http.StatusOK {
			t.Fatalf("POST /session: %d", code)
		}
	}
	if n := strings.Count(logs.String(), "WARN fetch dedup store full"); n != 2 {
		t.Errorf("%d WARN lines for 6 sessions past a cap of 4, want 2:\n%s", n, logs.String())
	}
	if live := metricValue(t, srv.URL+"/metrics", "demo_sessions_live"); live != 6 {
		t.Errorf("demo_sessions_live %v, want 6", live)
	}
	time.Sleep(ttl + 50*time.Millisecond)
	get(t, http.MethodPost, srv.URL+"/session", "{}")
	if !strings.Contains(logs.String(), "session sweep: removed 6 idle sessions, 0 live") {
		t.Errorf("no sweep of the 6 idle sessions in the log:\n%s", logs.String())
	}
	if live := metricValue(t, srv.URL+"/metrics", "demo_sessions_live"); live != 1 {
		t.Errorf("demo_sessions_live %v after the sweep, want 1", live)
	}
}

// TestObservabilityRoutes: /metrics has the Go runtime's heap and the
// demo's leak gauge (which counts /leak exactly), and /debug/pprof/heap
// answers a gzip'd profile.
func TestObservabilityRoutes(t *testing.T) {
	srv := httptest.NewServer(NewHandler())
	defer srv.Close()
	for range 3 {
		get(t, http.MethodGet, srv.URL+"/leak?kb=16", "")
	}
	if v := metricValue(t, srv.URL+"/metrics", "demo_leaked_bytes"); v != 3*16*1024 {
		t.Errorf("demo_leaked_bytes %v, want %d", v, 3*16*1024)
	}
	if v := metricValue(t, srv.URL+"/metrics", "go_memstats_heap_inuse_bytes"); v <= 0 {
		t.Errorf("go_memstats_heap_inuse_bytes %v", v)
	}
	if v := metricValue(t, srv.URL+"/metrics", "demo_doctor_fd_cost_per_stream"); v != 1 {
		t.Errorf("demo_doctor_fd_cost_per_stream %v, want 1 (a socket)", v)
	}
	faulty, _ := faultyServer(t, "fd-estimate")
	if v := metricValue(t, faulty.URL+"/metrics", "demo_doctor_fd_cost_per_stream"); v != 64 {
		t.Errorf("fault fd-estimate: demo_doctor_fd_cost_per_stream %v, want 64", v)
	}
	code, body := get(t, http.MethodGet, srv.URL+"/debug/pprof/heap", "")
	if code != http.StatusOK || !strings.HasPrefix(body, "\x1f\x8b") {
		t.Errorf("/debug/pprof/heap: %d, %d bytes, want 200 and gzip", code, len(body))
	}
}
