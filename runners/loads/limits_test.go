package loads_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// loadsPlan is a group of the given loads (each a YAML flow mapping, one
// a line from line 7 on), with extra group keys after duration.
func loadsPlan(extra string, loads ...string) string {
	var b strings.Builder
	b.WriteString("version: 1\ngroups:\n  - id: g\n    duration: 1s\n" + extra + "    loads:\n")
	for _, l := range loads {
		b.WriteString("      - " + l + "\n")
	}
	return b.String()
}

// repeated is n loads named l0..l(n-1), each format with its name.
func repeated(n int, format string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, fmt.Sprintf("l%d", i))
	}
	return out
}

const (
	httpLoad = `{name: %s, runner: http, http: {requests: [{url: "http://127.0.0.1:1/"}]}, load: {rate: 1e6, max_in_flight: 10}}`
	sseLoad  = `{name: %s, runner: sse, sse: {url: "http://127.0.0.1:1/events", subscribers: 100000}}`
)

// TestLoadsAddUpToTheLimitsOfOneLoad: the loads of a group are refused at
// validation when their rates, or their workers (concurrency,
// max_in_flight, subscribers), add up past the limits of one load; the
// error names the file, line and field of the load that passes the
// limit, and the step of a sweep.
func TestLoadsAddUpToTheLimitsOfOneLoad(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, src, want string }{
		{"16 loads at 1e6/s", loadsPlan("", repeated(16, httpLoad)...),
			"test.yaml:7:9: group g: loads[1].load.rate: the loads' rates add up to 16000000 arrivals/s, above the limit of 1000000 for a group's loads together"},
		{"16 loads of 100k in flight", loadsPlan("", repeated(16, strings.Replace(httpLoad, "max_in_flight: 10", "max_in_flight: 100000", 1))...),
			"test.yaml:7:9: group g: loads[1].load.max_in_flight: the loads' workers (concurrency, max_in_flight, subscribers) add up to 1600000, above the limit of 100000"},
		{"16 x 100k subscribers", loadsPlan("", repeated(16, sseLoad)...),
			"test.yaml:7:38: group g: loads[1].sse.subscribers: the loads' workers (concurrency, max_in_flight, subscribers) add up to 1600000, above the limit of 100000"},
		{"max_in_flight beside subscribers", loadsPlan("",
			`{name: a, runner: http, http: {requests: [{url: "http://127.0.0.1:1/"}]}, load: {rate: 10, max_in_flight: 60000}}`,
			`{name: b, runner: sse, sse: {url: "http://127.0.0.1:1/events", subscribers: 50000}}`),
			"test.yaml:7:37: group g: loads[1].sse.subscribers: the loads' workers (concurrency, max_in_flight, subscribers) add up to 110000"},
		{"concurrency", loadsPlan("", repeated(3, `{name: %s, runner: http, http: {requests: [{url: "http://127.0.0.1:1/"}]}, load: {concurrency: 40000}}`)...),
			"test.yaml:8:9: group g: loads[2].load.concurrency: the loads' workers (concurrency, max_in_flight, subscribers) add up to 120000"},
		{"a sweep's step", loadsPlan("    sweep: {loads.l0.rate: [500000, 800000]}\n", repeated(2, strings.Replace(httpLoad, "1e6", "3e5", 1))...),
			"test.yaml:8:9: group g: loads[1].load.rate: step loads.l0.rate=800000: the loads' rates add up to 1100000 arrivals/s"},
		{"a sweep of subscribers", loadsPlan("    sweep: {loads.l1.subscribers: [10, 60000]}\n", repeated(2, strings.Replace(sseLoad, "100000", "50000", 1))...),
			"test.yaml:8:38: group g: loads[1].sse.subscribers: step loads.l1.subscribers=60000: the loads' workers (concurrency, max_in_flight, subscribers) add up to 110000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := plan.ParsePlan("test.yaml", []byte(c.src), func(string) (string, bool) { return "", false }, testRegistry)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
	// At the limits exactly, the loads are valid.
	ok := loadsPlan("", append(repeated(4, strings.Replace(httpLoad, "1e6", "250000", 1)), repeated(1, strings.Replace(sseLoad, "100000", "99960", 1))[0])...)
	ok = strings.Replace(ok, "name: l0, runner: sse", "name: s, runner: sse", 1)
	if _, err := plan.ParsePlan("test.yaml", []byte(ok), func(string) (string, bool) { return "", false }, testRegistry); err != nil {
		t.Errorf("loads at the limits exactly: %v", err)
	}
}

// TestPrepareRefusesLoadsPastTheLimits: loads changed past the limits
// after validation (a plan built in code) are refused when the step is
// prepared, before anything is sent.
func TestPrepareRefusesLoadsPastTheLimits(t *testing.T) {
	t.Parallel()
	srv, served := runnertest.CountingServer(t, 0)
	load := fmt.Sprintf(`{name: %%s, runner: http, http: {requests: [{url: "%s/"}]}, load: {rate: 500000, max_in_flight: 10}}`, srv.URL)
	p := runnertest.ParsePlan(t, testRegistry, loadsPlan("", repeated(2, load)...), nil)
	p.Groups[0].Loads[1].Load.Rate = 600000
	s, err := engine.NewSession(testRegistry, p, p.Groups[0], engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.Start(ctx)
	for range s.Snapshots() {
	}
	<-s.Done()
	want := "group g: loads[1].load.rate: the loads' rates add up to 1100000 arrivals/s"
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), want) || served.Load() != 0 {
		t.Errorf("session error %v, %d requests served; want %q and none sent", err, served.Load(), want)
	}
}
