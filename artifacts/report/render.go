package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
)

// Formats a Comparison renders to.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
	FormatHTML     = "html"
)

// Render writes c in format: FormatText, FormatMarkdown or FormatJSON.
func Render(w io.Writer, c compare.Comparison, format string) error {
	switch format {
	case FormatText, "":
		return WriteText(w, c)
	case FormatMarkdown, "md":
		return WriteMarkdown(w, c)
	case FormatJSON:
		return WriteJSON(w, c)
	}
	return fmt.Errorf("unknown format %q (want text, markdown or json)", format)
}

// WriteText writes c as an aligned table, like benchstat, then its
// footnotes and warnings.
func WriteText(w io.Writer, c compare.Comparison) error {
	var sb strings.Builder
	notes := c.Footnotes()
	comparisonTable(c, notes).text(&sb)
	if len(c.Rows) == 0 {
		sb.WriteString("no rows: nothing in common to compare\n")
	}
	for i, n := range notes {
		sb.WriteString(superscript(i+1) + " " + n + "\n")
	}
	for _, warn := range c.Warnings {
		sb.WriteString("warning: " + warn + "\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteMarkdown writes c as a markdown table followed by its footnotes and
// a list of warnings.
func WriteMarkdown(w io.Writer, c compare.Comparison) error {
	var sb strings.Builder
	notes := c.Footnotes()
	comparisonTable(c, notes).markdown(&sb)
	if len(notes) > 0 {
		sb.WriteString("\n")
		for i, n := range notes {
			sb.WriteString(superscript(i+1) + " " + n + "  \n")
		}
	}
	if len(c.Warnings) > 0 {
		sb.WriteString("\n**Warnings**\n\n")
		for _, warn := range c.Warnings {
			sb.WriteString("- " + warn + "\n")
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// JSONRow is a row as compare --format json and run --format json write
// it: group to verdict (the contract in docs/artifact.md), followed
// by what the verdict rests on. delta_pct is null when the base is zero and
// the current is not; p, the intervals and the standard errors are left
// out where there are none, and an interval also when it is unbounded.
type JSONRow struct {
	Group        string   `json:"group"`
	Step         string   `json:"step"`
	Metric       string   `json:"metric"`
	Base         float64  `json:"base"`
	Current      float64  `json:"current"`
	DeltaPct     *float64 `json:"delta_pct"`
	Verdict      string   `json:"verdict"`
	Untested     bool     `json:"untested,omitempty"`
	Test         string   `json:"test"`
	P            *float64 `json:"p,omitempty"`
	NBase        int      `json:"n_base,omitempty"`
	NCurrent     int      `json:"n_current,omitempty"`
	Samples      string   `json:"samples,omitempty"`
	BaseCIPct    *float64 `json:"base_ci_pct,omitempty"`
	CurrentCIPct *float64 `json:"current_ci_pct,omitempty"`
	BaseSE       *float64 `json:"base_se,omitempty"`
	CurrentSE    *float64 `json:"current_se,omitempty"`
	BaseSpanS    float64  `json:"base_span_s,omitempty"`
	CurrentSpanS float64  `json:"current_span_s,omitempty"`
	Notes        []string `json:"notes,omitempty"`
}

// WriteJSON writes c as {"rows": [...], "geomean": [...], "warnings":
// [...]}, all three always arrays, one document followed by a newline.
func WriteJSON(w io.Writer, c compare.Comparison) error {
	doc := struct {
		Rows     []JSONRow `json:"rows"`
		Geomean  []JSONRow `json:"geomean"`
		Warnings []string  `json:"warnings"`
	}{Rows: JSONRows(c.Rows), Geomean: JSONRows(c.Geomean), Warnings: c.Warnings}
	if doc.Warnings == nil {
		doc.Warnings = []string{}
	}
	return artifacts.EncodeJSON(w, doc)
}

// JSONRows converts rows to their JSON form.
func JSONRows(rows []compare.Row) []JSONRow {
	out := make([]JSONRow, 0, len(rows))
	for _, r := range rows {
		jr := JSONRow{Group: r.Group, Step: r.Step, Metric: r.Metric, Base: round4(r.Base),
			Current: round4(r.Current), DeltaPct: finite(r.DeltaPct, 100), Verdict: r.Verdict, Untested: r.Untested,
			Test: r.Test, P: finite(r.P, 10000), NBase: r.NBase, NCurrent: r.NCurrent, Samples: r.Samples,
			BaseCIPct: finite(r.BaseCIPct, 10), CurrentCIPct: finite(r.CurrentCIPct, 10),
			BaseSpanS: r.BaseSpanS, CurrentSpanS: r.CurrentSpanS, Notes: r.Notes}
		if r.Test == compare.TestTrend {
			jr.BaseSE, jr.CurrentSE = finite(r.BaseSE, 10000), finite(r.CurrentSE, 10000)
		}
		out = append(out, jr)
	}
	return out
}

// finite rounds v to 1/scale, or returns nil for an infinite or NaN v.
func finite(v, scale float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	r := math.Round(v*scale) / scale
	return &r
}

// round4 keeps four significant digits, so that medians of noisy samples
// do not print their last bits.
func round4(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return f
}

// comparisonTable lays out the rows and geomean rows, with the footnote marks of
// notes, as benchstat does: each figure with its spread, the delta, the
// verdict and what it rests on.
func comparisonTable(c compare.Comparison, notes []string) *table {
	t := &table{header: []string{"group", "step", "metric", "base", "current", "delta", "verdict", "test"},
		right: []bool{false, false, false, true, true, true, false, false}}
	for _, r := range append(slices.Clip(c.Rows), c.Geomean...) {
		t.add(r.Group, r.Step, r.Metric, sideCell(r, r.Base, r.BaseCIPct, r.BaseSE),
			sideCell(r, r.Current, r.CurrentCIPct, r.CurrentSE), DeltaCell(r),
			VerdictMark(r)+marks(r, notes), Basis(r))
	}
	return t
}

// VerdictMark is a row's verdict as the tables show it: "better", "worse",
// "~" (same: within noise or below the minimum effect), "?" (untested:
// the data could not decide; a footnote says why).
func VerdictMark(r compare.Row) string {
	switch {
	case r.Untested:
		return "?"
	case r.Verdict == compare.Same:
		return "~"
	}
	return r.Verdict
}

// sideCell is a figure with its spread: "8.10 ms ± 3%" for a median,
// "6.50 ± 0.21 MB/min" for a trend, the bare figure otherwise.
func sideCell(r compare.Row, v, ciPct, se float64) string {
	switch {
	case r.Test == compare.TestTrend && se > 0:
		unit := FormatValue(r.Metric, v)
		num, rest, _ := strings.Cut(unit, " ")
		return strings.TrimSpace(num + " ± " + compare.TrendNumber(r.Metric, se) + " " + rest)
	case r.Test != compare.TestMannWhitney:
		return FormatValue(r.Metric, v)
	case math.IsInf(ciPct, 1):
		return FormatValue(r.Metric, v) + " ± ∞"
	case math.IsNaN(ciPct):
		return FormatValue(r.Metric, v) + " ± ?"
	}
	return FormatValue(r.Metric, v) + fmt.Sprintf(" ± %.0f%%", ciPct)
}

// DeltaCell is the change in percent, except for slopes, where a
// percentage of a figure near zero means nothing: their change is absolute.
func DeltaCell(r compare.Row) string {
	if d, m := r.Current-r.Base, artifacts.BaseMetric(r.Metric); m == compare.MetricRSSSlope || m == compare.MetricFDsSlope {
		return map[bool]string{true: "+", false: ""}[d >= 0] + FormatValue(r.Metric, d)
	}
	return FormatDelta(r.DeltaPct)
}

// Basis says what a verdict rests on: "p=0.008 n=5 runs" (medians of
// those samples), "n=3+3 blocks of 1s", "p=0.000 n=30+30 spans 29+29 s"
// (fitted slopes), "over 3 steps"; "" for a row of whole-step figures.
func Basis(r compare.Row) string {
	switch r.Test {
	case compare.TestMannWhitney:
		n := fmt.Sprintf("n=%d+%d", r.NBase, r.NCurrent)
		if r.NBase == r.NCurrent {
			n = fmt.Sprintf("n=%d", r.NBase)
		}
		if !math.IsNaN(r.P) {
			n = fmt.Sprintf("p=%.3f %s", r.P, n)
		}
		return n + " " + r.Samples
	case compare.TestTrend:
		n := "spans " + artifacts.TrimFloat(math.Round(r.BaseSpanS)) + "+" + artifacts.TrimFloat(math.Round(r.CurrentSpanS)) + " s"
		if r.NBase > 0 {
			n = fmt.Sprintf("n=%d+%d %s", r.NBase, r.NCurrent, n)
		}
		if !math.IsNaN(r.P) {
			n = fmt.Sprintf("p=%.3f %s", r.P, n)
		}
		return n
	case compare.TestGeomean:
		return fmt.Sprintf("over %d steps", r.NBase)
	}
	return ""
}

// marks are the superscript numbers of r's notes among notes: " ¹²".
func marks(r compare.Row, notes []string) string {
	var sb strings.Builder
	for _, n := range r.Notes {
		if i := slices.Index(notes, n); i >= 0 {
			sb.WriteString(superscript(i + 1))
		}
	}
	if sb.Len() == 0 {
		return ""
	}
	return " " + sb.String()
}

// superscript writes n in superscript digits, as benchstat marks footnotes.
func superscript(n int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	var sb strings.Builder
	for _, d := range strconv.Itoa(n) {
		sb.WriteString(string([]rune(digits)[d-'0']))
	}
	return sb.String()
}

// FormatDelta formats a percentage change: "+5.2%", "-50.0%", "0.0%", and
// "+∞" when the base was zero.
func FormatDelta(pct float64) string {
	switch {
	case math.IsInf(pct, 1):
		return "+∞"
	case math.IsInf(pct, -1):
		return "-∞"
	case math.IsNaN(pct):
		return "—"
	case math.Abs(pct) < 0.05:
		return "0.0%"
	}
	return fmt.Sprintf("%+.1f%%", pct)
}

// FormatValue formats a metric's figure with its unit: "5,924 rps",
// "8.10 ms", "0.10%", "12", "6.52 MB/min", "1.41", "0.37 cores".
func FormatValue(metric string, v float64) string {
	switch artifacts.BaseMetric(metric) {
	case compare.MetricThroughput, compare.MetricOKRPS:
		return artifacts.FormatNumber(v) + " rps"
	case compare.MetricP50, compare.MetricP90, compare.MetricP99, compare.MetricP999, compare.MetricMax:
		return FormatMS(v)
	case compare.MetricErrorRate:
		return strconv.FormatFloat(100*v, 'g', 3, 64) + "%"
	case compare.MetricDropped:
		return artifacts.FormatNumber(v)
	case compare.MetricRSSSlope:
		return fmt.Sprintf("%.2f MB/min", v)
	case compare.MetricFDsSlope:
		return fmt.Sprintf("%.3g fds/min", v)
	case compare.MetricCPU:
		return fmt.Sprintf("%.2f cores", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// FormatMS formats milliseconds with three significant digits, switching to
// seconds from 10 s: "0.030 ms", "8.10 ms", "128 ms", "1.77 s".
func FormatMS(ms float64) string {
	switch {
	case ms >= 10000:
		return fmt.Sprintf("%.1f s", ms/1000)
	case ms >= 1000:
		return fmt.Sprintf("%.2f s", ms/1000)
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	case ms >= 1:
		return fmt.Sprintf("%.2f ms", ms)
	}
	return fmt.Sprintf("%.3f ms", ms)
}
