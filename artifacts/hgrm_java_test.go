package artifacts_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/artifacts/report"
)

// namedHistogram is a test histogram of the artifact's range (µs).
type namedHistogram struct {
	name string
	h    *hdrhistogram.Histogram
}

// trickyHistograms are histograms whose percentiles and distribution
// rows are easy to get wrong: empty, one value, a few values, values on
// bucket edges, ties between the two rank rules, heavy tails, huge counts.
func trickyHistograms(t *testing.T) []namedHistogram {
	t.Helper()
	var out []namedHistogram
	add := func(name string, fill func(h *hdrhistogram.Histogram)) {
		h := artifacts.NewHistogram()
		fill(h)
		out = append(out, namedHistogram{name, h})
	}
	record := func(h *hdrhistogram.Histogram, v, n int64) {
		if err := h.RecordValues(v, n); err != nil {
			t.Fatal(err)
		}
	}
	add("empty", func(*hdrhistogram.Histogram) {})
	add("one value", func(h *hdrhistogram.Histogram) { record(h, 1234, 1) })
	add("zero", func(h *hdrhistogram.Histogram) { record(h, 0, 3) })
	for _, n := range []int{2, 3, 7, 10, 101, 999, 1001} {
		add(fmt.Sprintf("%d distinct", n), func(h *hdrhistogram.Histogram) {
			for i := 1; i <= n; i++ {
				record(h, int64(i*i*37), 1)
			}
		})
	}
	add("bucket edges", func(h *hdrhistogram.Histogram) {
		for _, v := range []int64{1, 2047, 2048, 2049, 4095, 4096, 8191, 8192, 1 << 20, 1<<20 - 1, artifacts.HistMaxUS} {
			record(h, v, 1)
		}
	})
	add("two buckets 99:1", func(h *hdrhistogram.Histogram) { record(h, 900, 99); record(h, 50_000, 1) })
	add("ties 1000:1", func(h *hdrhistogram.Histogram) { record(h, 900, 999); record(h, 70_000, 1) })
	add("ties 2000:2", func(h *hdrhistogram.Histogram) { record(h, 900, 1998); record(h, 70_000, 1); record(h, 90_000, 1) })
	add("huge counts", func(h *hdrhistogram.Histogram) {
		record(h, 500, 1e12)
		record(h, 3_000_000, 1e9)
		record(h, 40_000_000, 7)
	})
	rng := rand.New(rand.NewPCG(33, 2))
	for i := range 6 {
		n := []int{50, 1000, 20_000, 200_000, 1_000_000, 3}[i]
		add(fmt.Sprintf("lognormal %d", n), func(h *hdrhistogram.Histogram) {
			for range n {
				v := math.Exp(rng.NormFloat64()*1.5 + 7) // median ~1 ms, a long tail
				record(h, min(max(int64(v), 1), artifacts.HistMaxUS), 1)
			}
		})
	}
	return out
}

// encodeAll is the histograms' artifact encodings, one a line.
func encodeAll(t *testing.T, hs []namedHistogram) string {
	t.Helper()
	var b strings.Builder
	for _, nh := range hs {
		enc, err := artifacts.EncodeHistogram(nh.h)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(enc + "\n")
	}
	return b.String()
}

// TestHGRMIsJavasOutputPercentileDistribution: for every tricky
// histogram, decoded by HdrHistogram Java from the artifact's encoding,
// Java's outputPercentileDistribution(out, 5, 1000.0) and benchtui's .hgrm
// are the same bytes.
func TestHGRMIsJavasOutputPercentileDistribution(t *testing.T) {
	hs := trickyHistograms(t)
	java := strings.Split(javaHdr(t, encodeAll(t, hs), "hgrm"), "=====\n")
	if len(java) != len(hs)+1 {
		t.Fatalf("java printed %d distributions, want %d", len(java)-1, len(hs))
	}
	for i, nh := range hs {
		if got := artifacts.HGRM(nh.h); got != java[i] {
			t.Errorf("%s: benchtui's .hgrm differs from Java's:\n%s", nh.name, firstDifference(got, java[i]))
		}
	}
}

// TestReportPercentilesFilesAreJavas: `report --percentiles -o DIR`
// writes <artifact>-step<N>.hgrm for every step with a histogram, each
// the bytes Java prints for that step's histogram, and names the step
// without one.
func TestReportPercentilesFilesAreJavas(t *testing.T) {
	a, err := artifacts.Load("testdata/artifact.json")
	if err != nil {
		t.Fatal(err)
	}
	a.Steps = append(a.Steps, a.Steps[0], a.Steps[0])
	a.Steps[1].Histogram = ""
	h := artifacts.NewHistogram()
	h.RecordValues(2048, 5)
	if a.Steps[2].Histogram, err = artifacts.EncodeHistogram(h); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "hgrm")
	written, skipped, err := report.WritePercentileFiles(dir, []*artifacts.Artifact{a})
	base := "G5-" + strconv.FormatInt(a.Run.Started.UnixMilli(), 10)
	if err != nil || strings.Join(written, " ") != base+"-step1.hgrm "+base+"-step3.hgrm" ||
		len(skipped) != 1 || !strings.HasPrefix(skipped[0], base+"-step2.hgrm") {
		t.Fatalf("written %q, skipped %q, err %v", written, skipped, err)
	}
	java := strings.Split(javaHdr(t, a.Steps[0].Histogram+"\n"+a.Steps[2].Histogram+"\n", "hgrm"), "=====\n")
	for i, name := range written {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != java[i] {
			t.Errorf("%s differs from Java's:\n%s", name, firstDifference(string(got), java[i]))
		}
	}
}

// TestCeilRankIsJavasGetValueAtPercentile: ValueAtPercentileCeil, and so
// the artifact's p99_ceil and p999_ceil, are Java's getValueAtPercentile
// on every tricky histogram, at percentiles that land on and between
// ranks.
func TestCeilRankIsJavasGetValueAtPercentile(t *testing.T) {
	hs := trickyHistograms(t)
	qs := []float64{0, 0.1, 1, 10, 25, 33.333, 50, 66.6, 90, 95, 99, 99.5, 99.9, 99.99, 99.999, 100}
	args := []string{"pct"}
	for _, q := range qs {
		args = append(args, strconv.FormatFloat(q, 'g', -1, 64))
	}
	lines := strings.Split(strings.TrimSuffix(javaHdr(t, encodeAll(t, hs), args...), "\n"), "\n")
	if len(lines) != len(hs) {
		t.Fatalf("java printed %d lines, want %d", len(lines), len(hs))
	}
	differ := 0
	for i, nh := range hs {
		java := strings.Fields(lines[i])
		for j, q := range qs {
			want, _ := strconv.ParseInt(java[j], 10, 64)
			if got := artifacts.ValueAtPercentileCeil(nh.h, q); got != want {
				t.Errorf("%s p%v: %d, Java %d", nh.name, q, got, want)
			}
			if nh.h.ValueAtQuantile(q) != want {
				differ++
			}
		}
		p := artifacts.PercentilesOf(nh.h)
		if p.P99Ceil != float64(artifacts.ValueAtPercentileCeil(nh.h, 99))/1000 || p.P999Ceil != float64(artifacts.ValueAtPercentileCeil(nh.h, 99.9))/1000 {
			t.Errorf("%s: PercentilesOf p99_ceil %v p999_ceil %v", nh.name, p.P99Ceil, p.P999Ceil)
		}
	}
	t.Logf("hdrhistogram-go's rounded rank differs from Java's on %d of %d readings", differ, len(hs)*len(qs))
	if differ == 0 {
		t.Error("the tricky histograms never tell the two rank rules apart")
	}
}

// TestHLogReadByJava: Java's HistogramLogReader reads a written
// artifact's .hlog with the start time to the millisecond, the StartTime
// line is the one Java's HistogramLogWriter writes, and the intervals'
// times and counts are the ones recorded (adding up to the histogram).
func TestHLogReadByJava(t *testing.T) {
	started := time.UnixMilli(1_796_110_015_618).UTC()
	log := artifacts.NewIntervalLog(started)
	total := artifacts.NewHistogram()
	var want []string
	for i := range 4 {
		h := artifacts.NewHistogram()
		for v := range int64(100 * (i + 1)) {
			h.RecordValue(300 + v*17)
		}
		total.Merge(h)
		from, to := started.Add(time.Duration(i)*time.Second+7*time.Millisecond), started.Add(time.Duration(i+1)*time.Second+7*time.Millisecond)
		if err := log.Add(h, from, to); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("interval %d %d %d", from.UnixMilli(), to.UnixMilli(), h.TotalCount()))
	}
	enc, err := artifacts.EncodeHistogram(total)
	if err != nil {
		t.Fatal(err)
	}
	a := artifactstest.Artifact("G7", started, artifacts.Step{Label: "c=1", Requests: total.TotalCount(),
		Histogram: enc, IntervalLog: log})
	dir := t.TempDir()
	if _, err := artifacts.Write(dir, a); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, artifacts.HLogName(artifacts.FileName("G7", started), 0))
	java := strings.Split(strings.TrimSuffix(javaHdr(t, "", "hlog", path), "\n"), "\n")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ours := strings.Split(string(data), "\n")[2]
	if java[0] != fmt.Sprintf("start %d", started.UnixMilli()) || java[1] != ours ||
		ours != "#[StartTime: 1796110015.618 (seconds since epoch), Tue Dec 01 07:26:55 UTC 2026]" {
		t.Errorf("start time: Java read %q and writes %q; benchtui wrote %q", java[0], java[1], ours)
	}
	if got := strings.Join(java[2:], "\n"); got != strings.Join(want, "\n") {
		t.Errorf("Java read the intervals\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	// HistogramLogProcessor stamps each interval with its end relative to
	// StartTime: the first ends 1.007 s in (whole-second StartTime: 1.625).
	out := filepath.Join(dir, "processed")
	javaMain(t, "", "org.HdrHistogram.HistogramLogProcessor", "-i", path, "-o", out, "-outputValueUnitRatio", "1000")
	processed, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(string(processed), "\n"); len(lines) < 7 || !strings.HasPrefix(lines[3], "1.007: I:100 ") ||
		!strings.HasPrefix(lines[6], "4.007: I:400 ") {
		t.Errorf("HistogramLogProcessor's intervals:\n%s", processed)
	}
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		gl, wl := "<none>", "<none>"
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n benchtui %q\n java     %q", i+1, gl, wl)
		}
	}
	return "(same lines)"
}

// TestJavaFixedIsJavasFormat: the number formatting of the .hgrm and the
// StartTime line is Java's String.format("%.Nf") (half up on the shortest
// decimal, where strconv rounds the binary value half to even) on ties,
// carries, tiny and large values, and random doubles.
func TestJavaFixedIsJavasFormat(t *testing.T) {
	values := []float64{0, 1.005, 0.125, 0.0005, 0.00049, 2.675, 99.995, 9.9995, 1e-9, 123456789.0125,
		1796110015.618, 0.1 + 0.2, 1.0 / 3, 2.0 / 3, 0.9999999999995, 1.25, 1.2499999999999998, 1e15 + 0.5}
	rng := rand.New(rand.NewPCG(5, 7))
	for range 300 {
		values = append(values, math.Exp(rng.Float64()*30-15), float64(rng.IntN(1e7))/1000+0.0005,
			float64(rng.IntN(1e6))/1e4)
	}
	var in strings.Builder
	for _, v := range values {
		fmt.Fprintf(&in, "%x\n", math.Float64bits(v))
	}
	for _, prec := range []int{2, 3, 12} {
		java := strings.Split(javaHdr(t, in.String(), "fmt", strconv.Itoa(prec)), "\n")
		for i, v := range values {
			if got := artifacts.JavaFixed(v, prec); got != java[i] {
				t.Errorf("%%.%df of %v: %s, Java %s", prec, v, got, java[i])
			}
		}
	}
}
