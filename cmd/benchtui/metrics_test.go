package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestRunServesMetrics scrapes `run --metrics-addr` while the run runs
// and parses what it serves with expfmt.
func TestRunServesMetrics(t *testing.T) {
	t.Parallel()
	srv, _ := runnertest.CountingServer(t, time.Millisecond)
	addr, err := freeLoopbackAddr("tcp")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int)
	go func() {
		code, _, _ := runCmd(t, cmdRun, writePlan(t, srv.URL, ""), "-g", "closed", "--duration", "800ms", "-o", t.TempDir(), "--metrics-addr", addr)
		done <- code
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for seen := false; !seen; {
		select {
		case code := <-done:
			t.Fatalf("the run ended (exit %d) before a scrape counted a request", code)
		case <-tick.C:
			seen = scrapedRequests(t, "http://"+addr+"/metrics") > 0
		}
	}
	if code := <-done; code != exitOK {
		t.Errorf("exit %d", code)
	}
}

// scrapedRequests is benchtui_requests_total of the first series served at
// url; 0 when nothing answers yet or there is none.
func scrapedRequests(t *testing.T, url string) float64 {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	if f := fams["benchtui_requests_total"]; f != nil && len(f.Metric) > 0 {
		return f.Metric[0].GetCounter().GetValue()
	}
	return 0
}

func TestMetricsAddrOffLoopbackIsAUsageError(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCmd(t, cmdRun, "--metrics-addr", ":9464", "plan.yaml")
	if code != exitUsage || !strings.Contains(stderr, "--metrics-remote") {
		t.Errorf("exit %d, stderr %q: want 2 naming --metrics-remote", code, stderr)
	}
}
