package main

import (
	"encoding/csv"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
)

// csvHeader are the columns of run --format csv, one row per step.
// Latencies are in milliseconds; worse and better list the metrics the
// comparison with --baseline judged so, separated by ";". No column is
// named by an SQL keyword ("group" was: DuckDB and others needed it
// quoted), so a query reads the columns as they are.
var csvHeader = []string{"group_id", "step", "duration_s", "requests", "errors", "dropped",
	"throughput_rps", "ok_rps", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms", "mean_ms",
	"checks", "checks_failed", "worse", "better", "partial", "artifact", "status"}

// csvOutput collects the groups and writes the table at the end, when the
// verdicts are known.
type csvOutput struct {
	w      io.Writer
	groups []groupResult
}

func (o *csvOutput) group(r groupResult) { o.groups = append(o.groups, r) }

func (o *csvOutput) end(cmp *compare.Comparison, code int, interrupted bool) error {
	cw := csv.NewWriter(o.w)
	cw.Write(csvHeader)
	status := runStatus(code, interrupted)
	for _, r := range o.groups {
		if r.artifact == nil {
			continue
		}
		for _, s := range r.artifact.Steps {
			cw.Write(csvRow(r, s, stepVerdicts(cmp, r.id, s.Label), status))
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvRow(r groupResult, s artifacts.Step, verdicts []compare.Row, status string) []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	failed := 0
	for _, c := range s.Checks {
		if !c.OK {
			failed++
		}
	}
	var worse, better []string
	for _, v := range verdicts {
		switch v.Verdict {
		case compare.Worse:
			worse = append(worse, v.Metric)
		case compare.Better:
			better = append(better, v.Metric)
		}
	}
	l := s.LatencyMS
	row := []string{r.id, s.Label, f(s.DurationS), i(s.Requests), i(s.Errors), i(s.Dropped),
		f(s.ThroughputRPS), f(s.OKRPS), f(l.P50), f(l.P90), f(l.P99), f(l.P999), f(l.Max), f(l.Mean),
		strconv.Itoa(len(s.Checks)), strconv.Itoa(failed), strings.Join(worse, ";"), strings.Join(better, ";"),
		strconv.FormatBool(r.artifact.Run.Partial), r.path, status}
	for i, cell := range row {
		row[i] = inertCell(cell)
	}
	return row
}

// inertCell keeps a spreadsheet from reading cell as a formula, as OWASP
// recommends against CSV injection: a cell that starts with =, +, -, @,
// a tab or a carriage return (an artifacts path such as
// "=HYPERLINK(…)/g.json") gets a ' in front. A number stays as it is:
// -3.5 is data.
func inertCell(cell string) string {
	if cell == "" || !strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return cell
	}
	if plainNumber.MatchString(cell) {
		return cell
	}
	return "'" + cell
}

// plainNumber is a decimal number as strconv.FormatFloat writes one
// (no Inf, NaN or hex: a spreadsheet reads those as names).
var plainNumber = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
