package artifacts_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
)

// figureOf parses path and reads it from s.
func figureOf(t *testing.T, s *artifacts.Step, path string) (float64, error) {
	t.Helper()
	f, err := artifacts.ParseFigure(path)
	if err != nil {
		t.Fatalf("ParseFigure(%q): %v", path, err)
	}
	return f.Of(s)
}

// Percentiles of the step and of a named request come from their
// histograms, exactly as hdrhistogram's ValueAtQuantile reads them.
func TestPercentileFiguresComeFromTheHistogram(t *testing.T) {
	h, named := artifacts.NewHistogram(), artifacts.NewHistogram()
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		us := int64(r.ExpFloat64()*2000) + 50
		if err := h.RecordValue(us); err != nil {
			t.Fatal(err)
		}
		if us%3 == 0 {
			_ = named.RecordValue(us * 2)
		}
	}
	enc, _ := artifacts.EncodeHistogram(h)
	encNamed, _ := artifacts.EncodeHistogram(named)
	s := &artifacts.Step{Requests: h.TotalCount(), Histogram: enc, LatencyMS: artifacts.PercentilesOf(h),
		ByName: map[string]artifacts.NamedStep{"ping": {Requests: named.TotalCount(), Histogram: encNamed}}}
	for _, c := range []struct {
		path string
		q    float64
		hist func() int64
	}{
		{"p95", 95, nil}, {"p99.9", 99.9, nil}, {"p999", 99.9, nil}, {"p50", 50, nil}, {"p99.99", 99.99, nil},
		{"by_name.ping.p99", 99, func() int64 { return named.ValueAtQuantile(99) }},
		{"by_name.ping.p99.9", 99.9, func() int64 { return named.ValueAtQuantile(99.9) }},
	} {
		want := float64(h.ValueAtQuantile(c.q)) / 1000
		if c.hist != nil {
			want = float64(c.hist()) / 1000
		}
		got, err := figureOf(t, s, c.path)
		if err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v (ValueAtQuantile(%v))", c.path, got, err, want, c.q)
		}
	}
	if got, _ := figureOf(t, s, "max"); got != float64(h.Max())/1000 {
		t.Errorf("max = %v, want %v", got, float64(h.Max())/1000)
	}
	// p95 is not among the stored percentiles: it is read, not interpolated.
	if got, _ := figureOf(t, s, "p95"); got <= s.LatencyMS.P90 || got >= s.LatencyMS.P99 {
		t.Errorf("p95 %v outside (p90 %v, p99 %v)", got, s.LatencyMS.P90, s.LatencyMS.P99)
	}
}

// A hand-filled step answers every family of figures; a name it lacks is
// an error saying so, never a zero.
func TestFiguresByPath(t *testing.T) {
	s := &artifacts.Step{
		Requests: 100, Errors: 5, Dropped: 2, ThroughputRPS: 50,
		Target:     &artifacts.TargetStats{RSSMB: artifacts.Range{Start: 40, Peak: 90, End: 88}, RSSSlopeMBPerMin: 6.5, FDsPerUnit: 1.41},
		Counters:   map[string]int64{"reconnects": 210},
		Status:     map[string]int64{"200": 95, "429": 5},
		ErrorKinds: map[string]int64{"timeout": 5},
		ExtraMS:    map[string]artifacts.Percentiles{"handshake": {P99: 4.2, P999: 4.9}},
		// probes as the probes work writes them, here under extra
		Probes: map[string]artifacts.ProbeStats{"backlog": {Min: 0, Max: 12, Last: 3, SlopePerMin: -1.5, Samples: 1}},
	}
	for path, want := range map[string]float64{
		"requests": 100, "errors": 5, "dropped": 2, "error_rate": 0.05, "rps": 50,
		"target.fds_per_unit": 1.41, "target.rss_slope_mb_per_min": 6.5, "target.rss_growth_mb": 48, "target.rss_mb.peak": 90,
		"counters.reconnects": 210, "status.429": 5, "status.500": 0, "error_kinds.timeout": 5, "error_kinds.refused": 0,
		"extra.handshake.p99": 4.2, "extra.handshake.p99.9": 4.9,
		"probes.backlog.max": 12, "probes.backlog.slope_per_min": -1.5, "probes.backlog.last": 3,
	} {
		if got, err := figureOf(t, s, path); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", path, got, err, want)
		}
	}
	for path, want := range map[string]string{
		"counters.resets":     `counters has no "resets" in this step (has: reconnects)`,
		"by_name.ping.p99":    `by_name has no "ping" in this step (has: none)`,
		"extra.pool_wait.p99": `extra has no "pool_wait" in this step (has: handshake)`,
		"probes.queue.max":    `probes has no "queue" in this step (has: backlog)`,
		"self.rss_growth_mb":  "no self figures in this step",
	} {
		if _, err := figureOf(t, s, path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if _, err := figureOf(t, &artifacts.Step{}, "status.200"); err == nil {
		t.Error("status.200 of a step that counts no statuses: no error")
	}
}

func TestParseFigureErrors(t *testing.T) {
	for path, want := range map[string]string{
		"p95x":                `unknown figure "p95x" (nearest: p95, p50, p90; figures: pNN`,
		"requets":             `(nearest: requests; figures:`,
		"eror_rate":           `(nearest: error_rate; figures:`,
		"counter.reconnects":  `(nearest: counters.reconnects; figures:`,
		"target.fds_peak":     `(nearest: target.fds.peak; target.X, X: rss_mb.start`,
		"service.p95":         `unknown figure "service.p95" (nearest: service.p90, service.p99, service.p50; service.X`,
		"by_name.ping.eror":   `unknown "eror" (nearest: errors; by_name.NAME.X`,
		"latency":             "fds_per_unit, cpu_cores",
		"p0":                  "out of range",
		"p101":                "out of range",
		"target.fds":          `unknown figure "target.fds" (nearest: target.fds.end, target.fds.peak, target.fds.start; target.X, X: rss_mb.start`,
		"by_name.ping":        "want by_name.NAME.X (X: pNN, max",
		"by_name.ping.median": `unknown "median"`,
		"probes.backlog.p99":  `unknown "p99" (probes.NAME.X, X: min, max, mean, last, slope_per_min, tail_slope_per_min, samples, errors)`,
		"extra.handshake.p95": `unknown "p95"`,
		"counters.":           "want counters.NAME",
		"nosuch.family":       "unknown figure",
	} {
		if _, err := artifacts.ParseFigure(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	for path, ms := range map[string]bool{"p95": true, "max": true, "by_name.a.b.p99.9": true, "extra.x.max": true,
		"errors": false, "target.fds_per_unit": false, "by_name.a.requests": false, "probes.x.max": false} {
		f, err := artifacts.ParseFigure(path)
		if err != nil || f.Millis() != ms {
			t.Errorf("%s: millis %v, %v; want %v", path, f.Millis(), err, ms)
		}
	}
}

// A name the step lacks fails, naming the nearest names it has (at most
// three) and a bounded list of them all.
func TestAbsentNameNamesTheNearest(t *testing.T) {
	s := &artifacts.Step{Counters: map[string]int64{"streams_cut": 0, "streams_closed_clean": 4, "reconnects": 2}}
	f, err := artifacts.ParseFigure("counters.stream_cut")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Of(s); err == nil || !strings.Contains(err.Error(), `no "stream_cut" in this step (nearest: streams_cut; has: reconnects, streams_closed_clean, streams_cut)`) {
		t.Errorf("misspelt counter: %v", err)
	}
	many := map[string]int64{}
	for i := range 40 {
		many[fmt.Sprintf("c%02d", i)] = 1
	}
	s.Counters = many
	_, err = f.Of(s)
	if err == nil || !strings.Contains(err.Error(), "and 28 more)") || len(err.Error()) > 200 {
		t.Errorf("long list: %v", err)
	}
}

func TestNearest(t *testing.T) {
	for _, c := range []struct {
		name string
		have []string
		want string
	}{
		{"stream_cut", []string{"streams_cut", "reconnects"}, "streams_cut"},
		{"p9", []string{"p50", "p90", "p95", "p99", "max"}, "p90 p95 p99"},
		{"reconnect", []string{"reconnects", "disconnects"}, "reconnects"},
		{"fds", []string{"fds.start", "fds.peak", "rss_mb.end"}, "fds.peak fds.start"},
		{"zzzzzz", []string{"reconnects"}, ""},
		{"reconnects", []string{"reconnects"}, ""},
	} {
		if got := strings.Join(artifacts.Nearest(c.name, c.have), " "); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
