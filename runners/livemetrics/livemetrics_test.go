package livemetrics_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/httpload"
	"github.com/benchtui/benchtui/runners/livemetrics"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestScrapeDuringARun runs a group against a loopback server for 0.8 s
// with the exporter observing it, scrapes /metrics while it runs and after
// it ended, parses both with expfmt, and wants the final requests
// counter to be the artifact's request count.
func TestScrapeDuringARun(t *testing.T) {
	target, _ := runnertest.CountingServer(t, time.Millisecond)
	exp := livemetrics.New(livemetrics.Build{Version: "test"})
	srv := serve(t, exp)
	sess := session(t, target.URL, exp)
	live := 0.0
	for range sess.Snapshots() {
		if live == 0 {
			live = requests(t, srv.URL())
		}
	}
	if live <= 0 {
		t.Errorf("no requests counted while the run ran")
	}
	want := sess.Result().Steps[0].Requests
	if got := requests(t, srv.URL()); got != float64(want) || want == 0 {
		t.Errorf("benchtui_requests_total = %g after the run, the artifact has %d", got, want)
	}
}

// session starts a 0.8 s closed-loop session of one step against url,
// observed by o; the run's targets are cleaned up when the test ends.
func session(t *testing.T, url string, o engine.Observer) *engine.Session {
	t.Helper()
	src := fmt.Sprintf("version: 1\ngroups:\n  - id: G1\n    runner: http\n    http: {requests: [{url: %q}]}\n    load: {concurrency: 2}\n    duration: 800ms\n", url)
	_, sess := observedSession(t, src, o)
	return sess
}

// observedSession starts the session of the first group of the plan src
// (http runners only), its run observed by o and closed when the test
// ends.
func observedSession(t *testing.T, src string, o engine.Observer) (*engine.Run, *engine.Session) {
	t.Helper()
	reg := runners.MustRegistry(httpload.Kind())
	p, err := plan.ParsePlan("test.yaml", []byte(src), func(string) (string, bool) { return "", false }, reg)
	if err != nil {
		t.Fatal(err)
	}
	run := engine.NewRun(p, reg, t.TempDir(), "test")
	t.Cleanup(run.Close)
	run.Observer = o
	sess, err := run.Session(context.Background(), p.Groups[0])
	if err != nil {
		t.Fatal(err)
	}
	sess.Start(context.Background())
	return run, sess
}

// serve serves exp on a loopback port until the test ends.
func serve(t *testing.T, exp *livemetrics.Exporter) *livemetrics.Server {
	t.Helper()
	srv, err := livemetrics.Serve("127.0.0.1:0", false, exp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// requests scrapes url and returns benchtui_requests_total of G1's one
// step (0 before there is one).
func requests(t *testing.T, url string) float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("scrape does not parse: %v", err)
	}
	f := fams["benchtui_requests_total"]
	if f == nil || len(f.Metric) == 0 {
		return 0
	}
	if f.GetType() != dto.MetricType_COUNTER || label(f.Metric[0], "group") != "G1" {
		t.Errorf("benchtui_requests_total: %v", f)
	}
	return f.Metric[0].GetCounter().GetValue()
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.Label {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func TestCheckAddrRefusesTheNetworkUnlessAllowed(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:9464": true, "[::1]:9464": true, "localhost:9464": true,
		":9464": false, "0.0.0.0:9464": false, "192.0.2.1:9464": false, "nonsense": false} {
		if err := livemetrics.CheckAddr(addr, false); (err == nil) != ok {
			t.Errorf("CheckAddr(%q) = %v, want ok %v", addr, err, ok)
		}
	}
	if err := livemetrics.CheckAddr("0.0.0.0:9464", true); err != nil {
		t.Errorf("with remote allowed: %v", err)
	}
}
