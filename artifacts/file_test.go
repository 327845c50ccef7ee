package artifacts

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

var updateFixture = flag.Bool("update-fixture", false, "rewrite testdata/artifact.json")

// fixture is an artifact with every field of the schema set.
func fixture(t testing.TB) *Artifact {
	h := NewHistogram()
	for i := int64(1); i <= 1000; i++ {
		h.RecordValue(i * 10) // 10 µs … 10 ms
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	started := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return &Artifact{
		Schema: Schema,
		Run: Run{ID: "r1", Started: started, Finished: started.Add(9 * time.Minute), Partial: true,
			Host: Host{OS: "linux", CPUs: 2, Go: "go1.26"}, ToolVersion: "dev", VCSRevision: "9198213", PlanSHA256: "abc"},
		Group: Group{ID: "G5", Title: "Sustained", Runner: "http", Config: map[string]any{"load": map[string]any{"concurrency": 50.0}}},
		Steps: []Step{{
			Label: "concurrency=50", Params: map[string]float64{"concurrency": 50}, DurationS: 540, PausedS: 3.5,
			Requests: 3198945, Errors: 2, Dropped: 1, Drained: 7, ErrorKinds: map[string]int64{"timeout": 2}, ThroughputRPS: 5924.1,
			OKRPS: 5924.09, OfferedRPS: 6000, Late: 12,
			LatencyMS: PercentilesOf(h), ServiceMS: Percentiles{P50: 1.1, P99: 7.9},
			ExtraMS: map[string]Percentiles{"pool_wait": {P50: 0.1}}, Histogram: enc,
			Target: &TargetStats{RSSMB: Range{40.1, 90.2, 88}, RSSSlopeMBPerMin: 6.52, RSSSlopeSE: 0.21,
				RSSTailSlopeMBMin: 0.57, RSSTailSlopeSE: 0.4, FDs: Range{12, 713, 14}, FDsSlopePerMin: 0.5,
				FDsSlopeSE: 0.1, FDsPerUnit: 1.41, CPUCores: 0.37, CPUCoresSE: 0.02, SpanS: 540},
			Samples: &Samples{Of: SamplesOfBlocks, BlockS: 1, Values: map[string][]float64{
				SampleRPS: {5900, 5950}, SampleOKRPS: {5900, 5949}, SampleErrorRate: {0, 0.0002},
				SampleP50: {1.2, 1.1}, SampleP90: {3.1, 3}, SampleP99: {8, 8.2}, SampleP999: {20, 21},
				SampleMax: {46, 40}, SampleMean: {1.6, 1.5}}},
			Series:   []Point{{T: 1, DT: 1, RPS: 5900, P50MS: 1.2, P99MS: 8, InFlight: 50, RSSMB: 41, FDs: 64}},
			Checks:   []Check{{Name: "p99 <= 50ms", OK: true, Value: 8.1}},
			Events:   []Event{{T: 300, Kind: EventExtended, Note: "RSS rising 6.5 MB/min > 1.0 MB/min"}},
			Counters: map[string]int64{"disconnects": 3},
		}},
		Notes: []string{"rebuilt after fix"},
	}
}

func TestWriteLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a := fixture(t)
	path, err := Write(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "G5-1796040000000.json" {
		t.Errorf("file name %s", filepath.Base(path))
	}
	if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte(`"p99 <= 50ms"`)) {
		t.Errorf("the check's name is not written as it is (p99 <= 50ms)")
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Dir != filepath.Dir(path) {
		t.Errorf("Dir %q, want the artifact's folder %q", got.Dir, filepath.Dir(path))
	}
	got.Dir = ""
	if !reflect.DeepEqual(got, a) {
		t.Errorf("round trip changed the artifact:\n got %+v\nwant %+v", got, a)
	}
	h, err := DecodeHistogram(got.Steps[0].Histogram)
	if err != nil || h.TotalCount() != 1000 || PercentilesOf(h) != a.Steps[0].LatencyMS {
		t.Errorf("histogram after round trip: count %d, err %v", h.TotalCount(), err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestGoldenFixture pins the JSON field names, as Write encodes them:
// they are a contract. A check's "<=" is written as it is, not escaped
// for HTML (\u003c=).
func TestGoldenFixture(t *testing.T) {
	var buf bytes.Buffer
	if err := EncodeJSON(&buf, fixture(t)); err != nil {
		t.Fatal(err)
	}
	data := bytes.TrimSpace(buf.Bytes())
	golden := filepath.Join("testdata", "artifact.json")
	if *updateFixture {
		os.WriteFile(golden, append(data, '\n'), 0o644)
	}
	if bytes.Contains(data, []byte(`\u003c`)) || !bytes.Contains(data, []byte(`<=`)) {
		t.Errorf("want the fixture's checks' <= as they are:\n%s", data)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(want), data) {
		os.WriteFile(golden+".got", data, 0o644)
		t.Errorf("artifact JSON differs from %s (see .got)", golden)
	}
	if _, err := Decode(want); err != nil {
		t.Errorf("golden fixture does not load: %v", err)
	}
}

func TestLoadRejectsOtherSchemaAndDamage(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"other.json":    `{"schema": "k6.summary/v1", "group": {"id": "x"}}`,
		"cut.json":      `{"schema": "benchtui.artifact/v1", "group": {"id": "x"}, "steps": [`,
		"noschema.json": `{"group": {"id": "x"}}`,
		"badhist.json":  `{"schema": "benchtui.artifact/v1", "group": {"id": "x"}, "steps": [{"histogram": "HISTFAAAnotreally"}]}`,
		"badof.json":    `{"schema": "benchtui.artifact/v1", "group": {"id": "x"}, "steps": [{"samples": {"of": "seconds", "values": {}}}]}`,
		"noblock.json":  `{"schema": "benchtui.artifact/v1", "group": {"id": "x"}, "steps": [{"samples": {"of": "blocks", "values": {}}}]}`,
		"negative.json": `{"schema": "benchtui.artifact/v1", "group": {"id": "x"}, "steps": [{"samples": {"of": "runs", "values": {"p99": [1, -2]}}}]}`,
		"negse.json":    `{"schema": "benchtui.artifact/v1", "group": {"id": "x"}, "steps": [{"target": {"rss_slope_se_mb_per_min": -1}}]}`,
		"limits.json":   `{"schema": "benchtui.artifact/v1", "group": {"id": "x"}, "steps": [{"checks": [{"name": "a", "limits": [1, 2, 3]}]}]}`,
		"unit.json":     `{"schema": "benchtui.artifact/v1", "group": {"id": "x"}, "steps": [{"checks": [{"name": "a", "limits": [1], "unit": "\u001b[31m"}]}]}`,
		"toomany.json": `{"schema": "benchtui.artifact/v1", "group": {"id": "x"}, "steps": [{"samples": {"of": "runs", "values": {"p99": [` +
			strings.Repeat("1,", MaxSamples) + `1]}}}]}`,
	}
	for name, body := range cases {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v does not name the file", name, err)
		}
	}
	if _, err := readBounded("/dev/zero", 1<<20); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("/dev/zero: %v, want refused as a device", err)
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, make([]byte, 1<<20+1), 0o644)
	if _, err := readBounded(big, 1<<20); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("a file past the limit: %v, want refused as larger than the limit", err)
	}
}

// TestLoadOldArtifact reads an artifact written before samples, standard
// errors, drained, ok_rps and vcs_revision: additions must not break it.
func TestLoadOldArtifact(t *testing.T) {
	old := `{"schema": "benchtui.artifact/v1", "run": {"id": "r0", "tool_version": "dev"},
		"group": {"id": "G1"}, "steps": [{"label": "", "requests": 10, "throughput_rps": 5,
		"latency_ms": {"p99": 3}, "target": {"rss_slope_mb_per_min": 0.03, "cpu_cores": 0.1},
		"series": [{"t": 0.5, "rps": 5}]}], "notes": []}`
	a, err := Decode([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	s := a.Steps[0]
	if s.Samples != nil || s.Samples.N(SampleP99) != 0 || s.Target.SpanS != 0 || s.OKRPS != 0 || a.Run.VCSRevision != "" {
		t.Errorf("old artifact grew figures: %+v", s)
	}
}

func TestNewestSkipsLaterRuns(t *testing.T) {
	dir := t.TempDir()
	a := fixture(t)
	for _, min := range []int{0, 10, 20} {
		a.Run.Started = time.Date(2026, 11, 30, 12, min, 0, 0, time.UTC)
		if _, err := Write(dir, a); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Newest(dir, "G5", time.Date(2026, 11, 30, 12, 15, 0, 0, time.UTC))
	if err != nil || filepath.Base(got) != FileName("G5", time.Date(2026, 11, 30, 12, 10, 0, 0, time.UTC)) {
		t.Errorf("Newest = %s, %v", got, err)
	}
}

func FuzzDecode(f *testing.F) {
	data, _ := json.Marshal(fixture(f))
	f.Add(data)
	f.Add([]byte(`{"schema":"benchtui.artifact/v1","group":{"id":"g"},"steps":[{"histogram":"HISTFAAAAB"}]}`))
	f.Add([]byte(`{"schema":"benchtui.artifact/v1"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := Decode(b)
		if err == nil && (a == nil || a.Group.ID == "") {
			t.Fatal("accepted an artifact without a group")
		}
	})
}

// TestWriteIsReadableByAll: artifacts and reports are outputs to share,
// 0644 like any other, not the 0600 of os.CreateTemp.
func TestWriteIsReadableByAll(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	path, err := Write(t.TempDir(), fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != OutputMode {
		t.Errorf("artifact mode %v, want %v", fi.Mode().Perm(), os.FileMode(OutputMode))
	}
}

// TestWriteFileAtomicReplacesOnlyRegularFiles: a folder or a symbolic
// link at the path is refused and left; a regular file is replaced.
func TestWriteFileAtomicReplacesOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := []string{dir}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err == nil {
		refused = append(refused, link)
	}
	for _, path := range refused {
		if err := WriteFileAtomic(path, []byte("new")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v; want refused", path, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target holds %q", b)
	}
	if err := WriteFileAtomic(target, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("the regular file holds %q", b)
	}
}
