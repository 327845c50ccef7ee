package artifacts

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Formats a Comparison renders to.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
	FormatHTML     = "html"
)

// Render writes c in format: FormatText, FormatMarkdown or FormatJSON.
func (c Comparison) Render(w io.Writer, format string) error {
	switch format {
	case FormatText, "":
		return c.WriteText(w)
	case FormatMarkdown, "md":
		return c.WriteMarkdown(w)
	case FormatJSON:
		return c.WriteJSON(w)
	}
	return fmt.Errorf("unknown format %q (want text, markdown or json)", format)
}

// WriteText writes c as an aligned table, like benchstat, then its warnings.
func (c Comparison) WriteText(w io.Writer) error {
	var sb strings.Builder
	t := c.table(true)
	t.text(&sb)
	if len(c.Rows) == 0 {
		sb.WriteString("no rows: nothing in common to compare\n")
	}
	for _, warn := range c.Warnings {
		sb.WriteString("warning: " + warn + "\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteMarkdown writes c as a markdown table followed by a list of warnings.
func (c Comparison) WriteMarkdown(w io.Writer) error {
	var sb strings.Builder
	t := c.table(false)
	t.markdown(&sb)
	if len(c.Warnings) > 0 {
		sb.WriteString("\n**Warnings**\n\n")
		for _, warn := range c.Warnings {
			sb.WriteString("- " + warn + "\n")
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// jsonRow is a row as DESIGN.md specifies it. delta_pct is null when the
// base is zero and the current is not.
type jsonRow struct {
	Group    string   `json:"group"`
	Step     string   `json:"step"`
	Metric   string   `json:"metric"`
	Base     float64  `json:"base"`
	Current  float64  `json:"current"`
	DeltaPct *float64 `json:"delta_pct"`
	Verdict  string   `json:"verdict"`
}

// WriteJSON writes c as {"rows": [...], "warnings": [...]}, both always
// arrays, one document followed by a newline.
func (c Comparison) WriteJSON(w io.Writer) error {
	doc := struct {
		Rows     []jsonRow `json:"rows"`
		Warnings []string  `json:"warnings"`
	}{Rows: make([]jsonRow, 0, len(c.Rows)), Warnings: c.Warnings}
	if doc.Warnings == nil {
		doc.Warnings = []string{}
	}
	for _, r := range c.Rows {
		jr := jsonRow{r.Group, r.Step, r.Metric, r.Base, r.Current, nil, r.Verdict}
		if !math.IsInf(r.DeltaPct, 0) && !math.IsNaN(r.DeltaPct) {
			d := math.Round(r.DeltaPct*100) / 100
			jr.DeltaPct = &d
		}
		doc.Rows = append(doc.Rows, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// table lays out the rows; withTest adds the p-value and sample sizes.
func (c Comparison) table(withTest bool) *table {
	t := &table{header: []string{"group", "step", "metric", "base", "current", "delta", "verdict"},
		right: []bool{false, false, false, true, true, true, false}}
	if withTest {
		t.header = append(t.header, "test")
	}
	for _, r := range c.Rows {
		cells := []string{r.Group, r.Step, r.Metric, FormatValue(r.Metric, r.Base),
			FormatValue(r.Metric, r.Current), FormatDelta(r.DeltaPct), verdictCell(r.Verdict)}
		if withTest {
			cells = append(cells, testNote(r))
		}
		t.add(cells...)
	}
	return t
}

func verdictCell(v string) string {
	if v == Same {
		return "~"
	}
	return v
}

func testNote(r Row) string {
	switch r.Test {
	case "mann-whitney":
		if math.IsNaN(r.P) {
			return fmt.Sprintf("n=%d+%d too few", r.NBase, r.NCurrent)
		}
		return fmt.Sprintf("p=%.3f n=%d+%d", r.P, r.NBase, r.NCurrent)
	case "two-proportion":
		return fmt.Sprintf("p=%.3f counts", r.P)
	}
	return "effect only"
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
	case pct == 0:
		return "0.0%"
	}
	return fmt.Sprintf("%+.1f%%", pct)
}

// FormatValue formats a metric's figure with its unit: "5,924 rps",
// "8.10 ms", "0.10%", "12", "6.52 MB/min", "1.41", "0.37 cores".
func FormatValue(metric string, v float64) string {
	switch metric {
	case MetricThroughput:
		return FormatNumber(v) + " rps"
	case MetricP50, MetricP90, MetricP99, MetricP999, MetricMax:
		return FormatMS(v)
	case MetricErrorRate:
		return strconv.FormatFloat(100*v, 'g', 3, 64) + "%"
	case MetricDropped:
		return FormatNumber(v)
	case MetricRSSSlope:
		return fmt.Sprintf("%.2f MB/min", v)
	case MetricCPU:
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

// FormatNumber formats a count or rate with thousands separators, keeping
// one decimal below 100: "3,198,945", "5,924", "38.3".
func FormatNumber(v float64) string {
	if v != math.Trunc(v) && math.Abs(v) < 100 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
