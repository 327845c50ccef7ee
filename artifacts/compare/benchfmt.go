package compare

import (
	"errors"
	"io"
	"strings"
	"unicode"

	"github.com/benchtui/benchtui/artifacts"
	"golang.org/x/perf/benchfmt"
)

// benchfmtUnit is how a sampled metric is written in the Go benchmark
// format: its unit, as benchstat reads it, and the factor from the
// artifact's figure (milliseconds become seconds: benchstat scales
// sec/op as it does ns/op).
type benchfmtUnit struct {
	unit  string
	scale float64
}

// benchfmtUnits are the units of the sampled metrics in the Go benchmark
// format.
var benchfmtUnits = map[string]benchfmtUnit{
	MetricThroughput: {"req/s", 1},
	MetricOKRPS:      {"ok-req/s", 1},
	MetricP50:        {"p50-sec/op", 1e-3},
	MetricP90:        {"p90-sec/op", 1e-3},
	MetricP99:        {"p99-sec/op", 1e-3},
	MetricP999:       {"p99.9-sec/op", 1e-3},
	MetricMax:        {"max-sec/op", 1e-3},
	MetricErrorRate:  {"errors/op", 1},
}

// BenchfmtUnit is the unit metric's samples have in the Go benchmark
// format and the factor from the artifact's figure to it; "" for a
// metric that is not judged on samples.
func BenchfmtUnit(metric string) (unit string, scale float64) {
	u := benchfmtUnits[metric]
	return u.unit, u.scale
}

// WriteBenchfmt writes the samples Compare judges (SampledFigures) in the
// Go benchmark format that benchstat reads: one line per sample of each
// step, and of each named request, every sampled figure of that sample on
// it. A line is named Benchmark<group>/<step label>, with
// /request=<name> for a named request's; its iteration count is 1 (a
// sample is a block or a run, not an operation count). Artifacts without
// samples (written before they were kept) are an error: nothing would be
// written.
func WriteBenchfmt(w io.Writer, arts []*artifacts.Artifact) error {
	bw := benchfmt.NewWriter(w)
	figs := SampledFigures(arts)
	if len(figs) == 0 {
		return errors.New("no samples to write: the artifacts predate samples")
	}
	for start := 0; start < len(figs); {
		end := start + 1
		for end < len(figs) && sameSet(figs[start], figs[end]) {
			end++
		}
		if err := writeSampleLines(bw, figs[start:end]); err != nil {
			return err
		}
		start = end
	}
	return nil
}

func sameSet(a, b SampledFigure) bool {
	return a.Group == b.Group && a.Step == b.Step && a.Name == b.Name
}

// writeSampleLines writes the lines of one figure set: line i holds the
// i-th sample of every figure that has one.
func writeSampleLines(bw *benchfmt.Writer, figs []SampledFigure) error {
	name := benchfmtName(figs[0])
	lines := 0
	for _, f := range figs {
		lines = max(lines, len(f.Values))
	}
	for i := range lines {
		res := &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1}
		for _, f := range figs {
			if i < len(f.Values) {
				u := benchfmtUnits[f.Metric]
				res.Values = append(res.Values, benchfmt.Value{Value: f.Values[i] * u.scale, Unit: u.unit})
			}
		}
		if err := bw.Write(res); err != nil {
			return err
		}
	}
	return nil
}

// benchfmtName is the name of a figure set's lines, after "Benchmark".
func benchfmtName(f SampledFigure) string {
	name := benchfmtWord(f.Group)
	if f.Step != "" {
		name += "/" + benchfmtWord(f.Step)
	}
	if f.Name != "" {
		name += "/request=" + benchfmtWord(f.Name)
	}
	return name
}

// benchfmtWord is s without spaces or control characters (each becomes
// _), which would end a benchmark name or break its line.
func benchfmtWord(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return '_'
		}
		return r
	}, s)
}
