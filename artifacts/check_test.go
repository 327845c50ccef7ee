package artifacts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// goldenDoc is testdata/artifact.json (every field of the schema set) as
// a generic JSON document, for a test to damage.
func goldenDoc(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "artifact.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// setPath sets the value at a dotted path of doc ("steps.0.latency_ms.p99");
// a number names an array element.
func setPath(t *testing.T, doc map[string]any, path string, v any) {
	t.Helper()
	keys := strings.Split(path, ".")
	var cur any = doc
	for i, k := range keys {
		last := i == len(keys)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[k] = v
				return
			}
			cur = c[k]
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n >= len(c) {
				t.Fatalf("%s: no element %s", path, k)
			}
			if last {
				c[n] = v
				return
			}
			cur = c[n]
		default:
			t.Fatalf("%s: %s is not in the document", path, k)
		}
	}
}

// writeDoc writes doc as an artifact file of the test's own.
func writeDoc(t *testing.T, doc map[string]any, name string) string {
	t.Helper()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadRejectsFiguresOutOfRange damages the golden artifact one figure
// at a time: each is refused, naming the file and the field's JSON path.
func TestLoadRejectsFiguresOutOfRange(t *testing.T) {
	cases := []struct {
		path  string
		value any
		field string // in the error; path itself when empty
	}{
		// The golden histogram holds 1000 latencies: more than 999 requests.
		{"steps.0.requests", 999, "steps.0.histogram"},
		{"steps.0.histogram", longHistogram(t), ""},
		{"steps.0.requests", -5, ""},
		{"steps.0.errors", -1, ""},
		{"steps.0.dropped", -3, ""},
		{"steps.0.drained", -1, ""},
		{"steps.0.late", -12, ""},
		{"steps.0.errors", 3198946, ""},  // more errors than requests
		{"steps.0.drained", 3198946, ""}, // more drained than requests
		{"steps.0.error_kinds.timeout", -2, ""},
		{"steps.0.error_kinds.timeout", 3, ""}, // kinds add up to more than the 2 errors
		{"steps.0.counters.disconnects", -3, ""},
		{"steps.0.latency_ms.p99", 1.7e308, ""},
		{"steps.0.latency_ms.p50", -5, ""},
		{"steps.0.latency_ms.max", 3_600_001, ""}, // past an hour
		{"steps.0.service_ms.mean", 1.7e308, ""},
		{"steps.0.extra_ms.pool_wait.p50", -0.1, ""},
		{"steps.0.throughput_rps", -1, ""},
		{"steps.0.ok_rps", 6000, ""}, // more ok than completed
		{"steps.0.offered_rps", -6000, ""},
		{"steps.0.duration_s", -540, ""},
		{"steps.0.duration_s", 1.7e308, ""},
		{"steps.0.paused_s", -1, ""},
		{"steps.0.target.rss_mb.peak", -90, ""},
		{"steps.0.target.fds.start", -1, ""},
		{"steps.0.target.cpu_cores", -0.37, ""},
		{"steps.0.target.rss_slope_se_mb_per_min", -1, ""},
		{"steps.0.target.span_s", 1.7e308, ""},
		{"steps.0.samples.values.p99.1", 1.7e308, "steps.0.samples.values.p99[1]"},
		{"steps.0.samples.values.rps.0", -5900, "steps.0.samples.values.rps[0]"},
		{"steps.0.samples.values.error_rate.1", 2, "steps.0.samples.values.error_rate[1]"},
		{"steps.0.samples.block_s", 0, ""},
		{"steps.0.samples.of", "seconds", ""},
		{"steps.0.series.0.p99_ms", 1.7e308, "steps.0.series[0].p99_ms"},
		{"steps.0.series.0.errors", -1, "steps.0.series[0].errors"},
		{"steps.0.series.0.rps", -5900, "steps.0.series[0].rps"},
		{"steps.0.series.0.in_flight", -50, "steps.0.series[0].in_flight"},
		{"steps.0.events.0.t", -300, "steps.0.events[0].t"},
		{"steps.0.histogram", "HISTFAAAnotreally", ""},
		{"run.host.cpus", -2, ""},
		{"steps.0.by_name", map[string]any{"ping": map[string]any{"requests": -1}}, "steps[0].by_name.ping.requests"},
		{"steps.0.by_name", map[string]any{"ping": map[string]any{"requests": 5, "errors": 6}}, "steps[0].by_name.ping.errors"},
		{"steps.0.by_name", map[string]any{"a": map[string]any{"requests": 3198945}, "b": map[string]any{"requests": 2}}, "steps[0].by_name.b.requests"},
		{"steps.0.status", map[string]any{"200": 3198946}, "steps[0].status.200"},
		{"steps.0.windows", map[string]any{"rot": map[string]any{"requests": 5, "errors": 6}}, "steps[0].windows.rot.errors"},
		{"steps.0.windows", map[string]any{"rot": map[string]any{"requests": 3198946}}, "steps[0].windows.rot.requests"},
		{"steps.0.windows", map[string]any{"rot": map[string]any{"from_s": 2, "to_s": 1}}, "steps[0].windows.rot.to_s"},
		{"steps.0.windows", map[string]any{"rot": map[string]any{"latency_ms": map[string]any{"p99": -1}}}, "steps[0].windows.rot.latency_ms.p99"},
		{"steps.0.windows", map[string]any{"rot": map[string]any{"histogram": "HISTFAAAnotreally"}}, "steps[0].windows.rot.histogram"},
		// Text that `report` and `compare` print: no escape sequences.
		{"group.id", "G5\x1b]0;pwned\a", ""},
		{"group.title", "\x1b[2Jcleared", ""},
		{"steps.0.label", "c=50\r\x1b[1A", ""},
		{"steps.0.events.0.note", "\u009b31m", "steps[0].events[0].note"},
	}
	for _, tc := range cases {
		doc := goldenDoc(t)
		setPath(t, doc, tc.path, tc.value)
		file := writeDoc(t, doc, "G5-1.json")
		field := tc.field
		if field == "" {
			field = tc.path
		}
		// JSON path style: steps[0].latency_ms.p99
		field = strings.Replace(field, "steps.0.", "steps[0].", 1)
		_, err := Load(file)
		if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), field+": ") {
			t.Errorf("%s = %v: error %v, want one naming %s and %s", tc.path, tc.value, err, file, field)
		}
	}
}

// TestLoadsNamedRequestsArePartsOfTheirLoad: in a group of several loads
// a load's named request (LOAD/NAME) is a part of the load, counted
// within its requests and not again within the step's; elsewhere a "/"
// in a name means nothing, and the names add up to the step's.
func TestLoadsNamedRequestsArePartsOfTheirLoad(t *testing.T) {
	byName := map[string]any{
		"a": map[string]any{"requests": 3198940, "dropped": 1}, "a/ping": map[string]any{"requests": 3198940},
		"b": map[string]any{"requests": 5},
	}
	for _, tc := range []struct {
		runner string
		a      int64 // requests of a/ping
		field  string
	}{{"loads", 3198940, ""}, {"loads", 3198941, "steps[0].by_name.a/ping.requests"}, {"http", 3198940, "steps[0].by_name.a/ping.requests"}} {
		doc := goldenDoc(t)
		setPath(t, doc, "group.runner", tc.runner)
		byName["a/ping"].(map[string]any)["requests"] = tc.a
		setPath(t, doc, "steps.0.by_name", byName)
		_, err := Load(writeDoc(t, doc, "G5-1.json"))
		if (tc.field == "") != (err == nil) || tc.field != "" && !strings.Contains(err.Error(), tc.field+": ") {
			t.Errorf("runner %s, a/ping %d: error %v, want one naming %q", tc.runner, tc.a, err, tc.field)
		}
	}
}

// longHistogram is a well-formed histogram of a wider range than the
// artifact's, holding one latency of 83 minutes.
func longHistogram(t *testing.T) string {
	t.Helper()
	h := hdrhistogram.New(1, 10_000_000_000, 3)
	if err := h.RecordValue(5_000_000_000); err != nil {
		t.Fatal(err)
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestLoadRejectsDuplicateSteps: two steps of one label would be two
// rows that compare against each other's baseline.
func TestLoadRejectsDuplicateSteps(t *testing.T) {
	doc := goldenDoc(t)
	steps := doc["steps"].([]any)
	doc["steps"] = append(steps, steps[0])
	file := writeDoc(t, doc, "G5-1.json")
	_, err := Load(file)
	if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), `steps[1].label: "concurrency=50" repeats steps[0]`) {
		t.Errorf("error %v, want the repeated label of steps[1] named", err)
	}
}

// TestGoldenArtifactInRange: the undamaged golden artifact loads, and so
// does it with figures at the edges of their ranges.
func TestGoldenArtifactInRange(t *testing.T) {
	for _, edits := range []map[string]any{
		{},
		{"steps.0.latency_ms.max": MaxLatencyMS, "steps.0.samples.values.error_rate.1": 1},
		{"steps.0.errors": 3198945, "steps.0.drained": 3198945, "steps.0.error_kinds.timeout": 3198945},
		{"steps.0.errors": 0, "steps.0.error_kinds.timeout": 0, "steps.0.requests": 0, "steps.0.drained": 0, "steps.0.histogram": ""},
		{"steps.0.requests": 1000, "steps.0.errors": 2, "steps.0.drained": 7}, // as many requests as latencies
		{"steps.0.ok_rps": 5924.1, "steps.0.target.rss_slope_mb_per_min": -6.52, "steps.0.target.fds_per_unit": -0.5},
	} {
		doc := goldenDoc(t)
		for p, v := range edits {
			setPath(t, doc, p, v)
		}
		if _, err := Load(writeDoc(t, doc, "G5-1.json")); err != nil {
			t.Errorf("%v: %v", edits, err)
		}
	}
}

// TestConfigMayHoldAnyByte: a group's config is data, never printed: a
// body with CR, LF or ESC in it is an artifact that loads.
func TestConfigMayHoldAnyByte(t *testing.T) {
	doc := goldenDoc(t)
	setPath(t, doc, "group.config.http", map[string]any{"body": "a\r\n\x1b\x00b"})
	if _, err := Load(writeDoc(t, doc, "G5-1.json")); err != nil {
		t.Errorf("a config body with control bytes: %v, want it loaded", err)
	}
}
