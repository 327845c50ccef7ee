package livemetrics_test

import (
	"bytes"
	"io"
	"math"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/livemetrics"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestLatencyHistogramIsTheRunsCount runs a group against a loopback
// server with the exporter observing it and scrapes the end: the latency
// histogram's count is the server's own count of requests served (and the
// artifact's requests), its buckets rise to it, and its sum is the
// artifact's mean latency times its count; promtool and promlint pass it.
// While the run ran, a scrape saw a histogram too.
func TestLatencyHistogramIsTheRunsCount(t *testing.T) {
	target, served := runnertest.CountingServer(t, time.Millisecond)
	exp := livemetrics.New(livemetrics.Build{Version: "test"})
	srv := serve(t, exp)
	sess := session(t, target.URL, exp)
	var live *dto.Histogram
	for range sess.Snapshots() {
		if live == nil {
			live = latencyOf(t, families(t, scrape(t, srv.URL(), "")))
		}
	}
	if live == nil {
		t.Error("no latency histogram while the run ran")
	}
	st := sess.Result().Steps[0]
	body := scrape(t, srv.URL(), "")
	checkExposition(t, body)
	h := latencyOf(t, families(t, body))
	if h == nil {
		t.Fatal("no latency histogram after the run")
	}
	if got := h.GetSampleCount(); got != uint64(served.Load()) || got != uint64(st.Requests) || got == 0 {
		t.Errorf("histogram count %d; the server served %d, the artifact has %d requests", got, served.Load(), st.Requests)
	}
	prev := uint64(0)
	for _, b := range h.Bucket {
		if b.GetCumulativeCount() < prev || b.GetCumulativeCount() > h.GetSampleCount() {
			t.Errorf("bucket le=%g: %d after %d, count %d", b.GetUpperBound(), b.GetCumulativeCount(), prev, h.GetSampleCount())
		}
		prev = b.GetCumulativeCount()
	}
	want := st.LatencyMS.Mean * float64(st.Requests) / 1000
	if got := h.GetSampleSum(); math.Abs(got-want) > 1e-9*want {
		t.Errorf("histogram sum %.9f s, the artifact's mean × requests %.9f s", got, want)
	}
	t.Logf("%d requests, sum %.6f s, %d buckets", h.GetSampleCount(), h.GetSampleSum(), len(h.Bucket))
}

// TestScrapePassesPromtoolAndPromlint scrapes an exporter holding a
// finished step, a running one and a watched target, and wants the text
// exposition clean for promlint (the lint `promtool check metrics` runs)
// and for promtool itself (when installed), the CPU time a counter in seconds,
// and benchtui_build_info 1 with its labels.
func TestScrapePassesPromtoolAndPromlint(t *testing.T) {
	srv := servedExporter(t)
	body := scrape(t, srv.URL(), "")
	checkExposition(t, body)
	fams := families(t, body)
	cpu := fams["benchtui_target_cpu_seconds_total"]
	if cpu.GetType() != dto.MetricType_COUNTER || len(cpu.Metric) != 1 || cpu.Metric[0].GetCounter().GetValue() != 12.5 {
		t.Errorf("benchtui_target_cpu_seconds_total: %v", cpu)
	}
	bi := fams["benchtui_build_info"]
	if bi.GetType() != dto.MetricType_GAUGE || len(bi.Metric) != 1 || bi.Metric[0].GetGauge().GetValue() != 1 ||
		label(bi.Metric[0], "version") != "v1.2.3" || label(bi.Metric[0], "revision") != "abc123" ||
		!strings.HasPrefix(label(bi.Metric[0], "goversion"), "go") {
		t.Errorf("benchtui_build_info: %v", bi)
	}
	if n := len(fams["benchtui_latency_seconds"].GetMetric()); n != 2 {
		t.Errorf("%d latency histograms, want 2 (the done step and the running one)", n)
	}
}

// checkExposition wants body clean for promlint and for promtool check
// metrics (promtoolCheck).
func checkExposition(t *testing.T, body []byte) {
	t.Helper()
	problems, err := promlint.New(bytes.NewReader(body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	promtoolCheck(t, body)
}

// TestOpenMetricsWhenAsked wants OpenMetrics text when the scraper's
// Accept header asks for it (as Prometheus does), the classic text
// format otherwise.
func TestOpenMetricsWhenAsked(t *testing.T) {
	srv := servedExporter(t)
	resp := get(t, srv.URL(), "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Errorf("Content-Type %q, want OpenMetrics", ct)
	}
	for _, want := range []string{"# TYPE benchtui_requests counter\n", "# TYPE benchtui_latency_seconds histogram\n",
		"# TYPE benchtui_target_cpu_seconds counter\n", `benchtui_latency_seconds_bucket{group="G1",step="c=2",le="+Inf"} `} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("OpenMetrics scrape lacks %q", want)
		}
	}
	if !bytes.HasSuffix(body, []byte("# EOF\n")) {
		t.Errorf("OpenMetrics scrape does not end with # EOF")
	}
	plain := get(t, srv.URL(), "")
	plain.Body.Close()
	if ct := plain.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("without Accept: Content-Type %q, want text/plain", ct)
	}
}

// servedExporter serves an exporter that observed a finished step of G1
// (its artifact's histogram: 3 latencies), a running step of G2 and a
// watched target.
func servedExporter(t *testing.T) *livemetrics.Server {
	t.Helper()
	exp := livemetrics.New(livemetrics.Build{Version: "v1.2.3", Revision: "abc123"})
	exp.Step("G1", doneStep(t))
	exp.Snapshot(engine.Snapshot{GroupID: "G2", Label: "rate=100", TotalLatency: histogramOf(t, 900, 1_500),
		Target: &engine.ProcSample{RSSMB: 40, FDs: 12, CPUCores: 0.5, CPUSeconds: 12.5}, TargetName: "api"})
	return serve(t, exp)
}

// promtoolCheck pipes body to `promtool check metrics` and wants it
// silent and content. promtool is Debian's (package prometheus, which
// .ci/run installs); without it the check is skipped, logged, and
// promlint above stands for it (it is the lint promtool runs). Building
// promtool from its Go module instead took over 15 minutes on a 2-core
// machine: too much for a test.
func promtoolCheck(t *testing.T, body []byte) {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		t.Log("no promtool on PATH: promlint only")
		return
	}
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

func get(t *testing.T, url, accept string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func scrape(t *testing.T, url, accept string) []byte {
	t.Helper()
	resp := get(t, url, accept)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func families(t *testing.T, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("scrape does not parse: %v", err)
	}
	return fams
}

// latencyOf is G1's latency histogram, nil when there is none yet.
func latencyOf(t *testing.T, fams map[string]*dto.MetricFamily) *dto.Histogram {
	t.Helper()
	f := fams["benchtui_latency_seconds"]
	if f == nil || len(f.Metric) == 0 {
		return nil
	}
	if f.GetType() != dto.MetricType_HISTOGRAM || label(f.Metric[0], "group") != "G1" {
		t.Errorf("benchtui_latency_seconds: %v", f)
	}
	return f.Metric[0].GetHistogram()
}

func histogramOf(t *testing.T, us ...int64) *hdrhistogram.Histogram {
	t.Helper()
	h := artifacts.NewHistogram()
	for _, v := range us {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// doneStep is a finished step "c=2" whose artifact holds 3 latencies.
func doneStep(t *testing.T) *artifacts.Step {
	t.Helper()
	h := histogramOf(t, 800, 1_200, 30_000)
	enc, err := artifacts.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return &artifacts.Step{Label: "c=2", Requests: 3, ThroughputRPS: 1.5, LatencyMS: artifacts.PercentilesOf(h), Histogram: enc}
}
