package probe

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// findSample finds the value of the sample name{labels…} in a Prometheus
// text exposition page:
//
//   - a counter, gauge or untyped metric by its name;
//   - a summary's or histogram's sum and count as NAME_sum and NAME_count;
//   - a summary's quantile as NAME with the label quantile: "0.99";
//   - a histogram's cumulative bucket as NAME_bucket with the label le.
//
// labels must all match (others may be there too), and exactly one series
// must: two that match are an error that says to add labels.
func findSample(page io.Reader, name string, labels map[string]string) (float64, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(page)
	if err != nil {
		return 0, fmt.Errorf("parsing the metrics page: %w", err)
	}
	var found []float64
	if f := families[name]; f != nil {
		found = direct(f, labels)
	} else if base, part := splitSuffix(name); part != "" && families[base] != nil {
		found = composite(families[base], part, labels)
	} else {
		return 0, fmt.Errorf("no metric %s on the page", name)
	}
	switch len(found) {
	case 0:
		return 0, fmt.Errorf("no series of %s has the labels %s", name, labelText(labels))
	case 1:
		return found[0], nil
	}
	return 0, fmt.Errorf("%d series of %s have the labels %s: add labels to pick one", len(found), name, labelText(labels))
}

// direct are the values of a family read by its own name: a counter's,
// gauge's or untyped metric's, or a summary's quantile (labels name it).
func direct(f *dto.MetricFamily, labels map[string]string) []float64 {
	var out []float64
	for _, m := range f.GetMetric() {
		switch {
		case m.Counter != nil && has(m, labels, ""):
			out = append(out, m.Counter.GetValue())
		case m.Gauge != nil && has(m, labels, ""):
			out = append(out, m.Gauge.GetValue())
		case m.Untyped != nil && has(m, labels, ""):
			out = append(out, m.Untyped.GetValue())
		case m.Summary != nil && has(m, labels, "quantile"):
			for _, q := range m.Summary.GetQuantile() {
				if want, err := strconv.ParseFloat(labels["quantile"], 64); err == nil && q.GetQuantile() == want {
					out = append(out, q.GetValue())
				}
			}
		}
	}
	return out
}

// composite are the values of a summary's or histogram's part: "sum",
// "count" or "bucket" (whose le label picks the bucket).
func composite(f *dto.MetricFamily, part string, labels map[string]string) []float64 {
	var out []float64
	for _, m := range f.GetMetric() {
		skip := ""
		if part == "bucket" {
			skip = "le"
		}
		if !has(m, labels, skip) {
			continue
		}
		switch {
		case m.Summary != nil && part == "sum":
			out = append(out, m.Summary.GetSampleSum())
		case m.Summary != nil && part == "count":
			out = append(out, float64(m.Summary.GetSampleCount()))
		case m.Histogram != nil && part == "sum":
			out = append(out, m.Histogram.GetSampleSum())
		case m.Histogram != nil && part == "count":
			out = append(out, float64(m.Histogram.GetSampleCount()))
		case m.Histogram != nil && part == "bucket":
			out = append(out, bucket(m.Histogram, labels["le"])...)
		}
	}
	return out
}

func bucket(h *dto.Histogram, le string) []float64 {
	want, err := strconv.ParseFloat(le, 64)
	if err != nil {
		return nil
	}
	for _, b := range h.GetBucket() {
		if b.GetUpperBound() == want {
			return []float64{float64(b.GetCumulativeCount())}
		}
	}
	return nil
}

// splitSuffix splits NAME_sum, NAME_count and NAME_bucket.
func splitSuffix(name string) (base, part string) {
	for _, p := range []string{"sum", "count", "bucket"} {
		if b, ok := strings.CutSuffix(name, "_"+p); ok {
			return b, p
		}
	}
	return name, ""
}

// has reports whether m carries every label of want, but skip (which the
// caller matches itself).
func has(m *dto.Metric, want map[string]string, skip string) bool {
	got := map[string]string{}
	for _, l := range m.GetLabel() {
		got[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if k != skip && got[k] != v {
			return false
		}
	}
	return true
}

func labelText(labels map[string]string) string {
	parts := make([]string, 0, len(labels))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, fmt.Sprintf("%s=%q", k, labels[k]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}
