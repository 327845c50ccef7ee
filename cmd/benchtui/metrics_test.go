package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestRunServesMetrics scrapes `run --metrics-addr` while the run runs
// and parses what it serves with expfmt: requests counted, and
// benchtui_build_info naming this binary's version.
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
	var fams map[string]*dto.MetricFamily
	for counted(fams) == 0 {
		select {
		case code := <-done:
			t.Fatalf("the run ended (exit %d) before a scrape counted a request", code)
		case <-tick.C:
			fams = scrapeFamilies(t, "http://"+addr+"/metrics")
		}
	}
	ver, _ := buildInfo()
	if got := buildVersion(fams); got != ver {
		t.Errorf("benchtui_build_info version %q, want %q", got, ver)
	}
	if code := <-done; code != exitOK {
		t.Errorf("exit %d", code)
	}
}

// scrapeFamilies parses what is served at url; nil when nothing answers
// yet.
func scrapeFamilies(t *testing.T, url string) map[string]*dto.MetricFamily {
	resp, err := http.Get(url)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return fams
}

// counted is benchtui_requests_total of the first series; 0 when there is
// none.
func counted(fams map[string]*dto.MetricFamily) float64 {
	if f := fams["benchtui_requests_total"]; f != nil && len(f.Metric) > 0 {
		return f.Metric[0].GetCounter().GetValue()
	}
	return 0
}

// buildVersion is the version label of benchtui_build_info, "" when there
// is none.
func buildVersion(fams map[string]*dto.MetricFamily) string {
	for _, m := range fams["benchtui_build_info"].GetMetric() {
		for _, l := range m.Label {
			if l.GetName() == "version" && m.GetGauge().GetValue() == 1 {
				return l.GetValue()
			}
		}
	}
	return ""
}

func TestMetricsAddrOffLoopbackIsAUsageError(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCmd(t, cmdRun, "--metrics-addr", ":9464", "plan.yaml")
	if code != exitUsage || !strings.Contains(stderr, "--metrics-remote") {
		t.Errorf("exit %d, stderr %q: want 2 naming --metrics-remote", code, stderr)
	}
}
