package ui

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"charm.land/lipgloss/v2"

	artcompare "github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/artifacts/report"
)

// compact formats a figure in at most five columns: 0.162, 1.64, 76.4,
// 1234, 37.5k, 1.2M.
func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "—"
	case a == 0:
		return "0"
	case a >= 1e6:
		return trimZero(strconv.FormatFloat(v/1e6, 'f', 1, 64)) + "M"
	case a >= 1e4:
		return trimZero(strconv.FormatFloat(v/1e3, 'f', 1, 64)) + "k"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

// count formats an integer count compactly.
func count(n int64) string {
	if n < 10000 {
		return strconv.FormatInt(n, 10)
	}
	return compact(float64(n))
}

// deltaText formats a delta in percent as the renderers do
// (report.FormatDelta, whose marks of an infinite or missing delta it
// shares), but signed at zero and whole from 100% on, to stay narrow:
// +0.0%, +5.2%, -12.5%, +150%, +∞.
func deltaText(pct float64) string {
	switch {
	case math.IsInf(pct, 0) || math.IsNaN(pct):
		return report.FormatDelta(pct)
	case math.Abs(pct) >= 100:
		return fmt.Sprintf("%+.0f%%", pct)
	}
	return fmt.Sprintf("%+.1f%%", pct)
}

// dur formats a duration to the second, or tenths below ten seconds.
func dur(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// metricLabel is the console's name for a comparison metric.
var metricLabel = map[string]string{
	artcompare.MetricThroughput: "rps", artcompare.MetricP50: "p50 ms", artcompare.MetricP90: "p90 ms",
	artcompare.MetricP99: "p99 ms", artcompare.MetricP999: "p99.9 ms", artcompare.MetricMax: "max ms",
	artcompare.MetricErrorRate: "error rate", artcompare.MetricDropped: "dropped",
	artcompare.MetricRSSSlope: "RSS MB/min", artcompare.MetricFDsPerUnit: "fds/unit", artcompare.MetricCPU: "cpu cores",
}

// metricValue formats a comparison figure by metric, compactly and without
// its unit (the label has it); an error rate is in percent as in the
// renderers, but a zero rate is a bare "0".
func metricValue(metric string, v float64) string {
	switch metric {
	case artcompare.MetricErrorRate:
		if v == 0 {
			return "0"
		}
		return report.FormatValue(metric, v)
	case artcompare.MetricDropped:
		return count(int64(v))
	}
	return compact(v)
}

// len1 is the display width of s, styles and wide runes considered.
func len1(s string) int { return lipgloss.Width(s) }

func itoa(n int) string { return strconv.Itoa(n) }
