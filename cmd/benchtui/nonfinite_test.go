package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestNonFiniteProbeReadsKeepTheArtifact: probes that read NaN, Inf or
// 1e308 (a command's "nan", a Prometheus gauge of +Inf, a summary's NaN
// quantile) leave the run whole: exit 0, the artifact written with the
// non-finite reads counted as the probes' errors, and report reads it.
func TestNonFiniteProbeReadsKeepTheArtifact(t *testing.T) {
	t.Parallel()
	srv, _ := runnertest.CountingServer(t, time.Millisecond)
	metrics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "# TYPE g gauge\ng +Inf\n# TYPE rpc summary\nrpc{quantile=\"0.99\"} NaN\nrpc_sum 0\nrpc_count 0\n")
	}))
	t.Cleanup(metrics.Close)
	plan := writePlanText(t, fmt.Sprintf(`version: 1
groups:
  - id: g
    runner: http
    http: {requests: [{url: "%s/"}]}
    load: {concurrency: 1}
    duration: 600ms
    probes:
      - {name: nan, interval: 100ms, command: [echo, nan]}
      - {name: huge, interval: 100ms, command: [echo, "1e308"]}
      - {name: gauge, interval: 100ms, metric: {url: "%[2]s/metrics", name: g}}
      - {name: quantile, interval: 100ms, metric: {url: "%[2]s/metrics", name: rpc, labels: {quantile: "0.99"}}}
`, srv.URL, metrics.URL))
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, cmdRun, plan, "-o", out)
	if code != exitOK || strings.Contains(stderr, "unsupported value") {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	a := loadArtifacts(t, out)["g"]
	if a == nil {
		t.Fatalf("no artifact in %s; stderr:\n%s", out, stderr)
	}
	probes := a.Steps[0].Probes
	for _, name := range []string{"nan", "gauge", "quantile"} {
		if p := probes[name]; p.Samples != 0 || p.Errors == 0 {
			t.Errorf("probe %s: %d samples, %d errors; want its non-finite reads counted as gaps", name, p.Samples, p.Errors)
		}
	}
	if p := probes["huge"]; p.Samples == 0 || p.Max != 1e308 {
		t.Errorf("probe huge: %+v; want its reads kept", p)
	}
	if code, _, errOut := runCmd(t, cmdReport, out); code != exitOK {
		t.Errorf("report of the artifact: exit %d: %s", code, errOut)
	}
}
