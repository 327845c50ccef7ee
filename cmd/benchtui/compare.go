package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
	artreport "github.com/benchtui/benchtui/artifacts/report"
)

// cmdCompare implements `benchtui compare BASE CURRENT [--format
// text|markdown|json] [--threshold 5%] [--threshold p99=10%]`. BASE and
// CURRENT are artifact files or folders (the newest artifact of each group).
// With `--pair A=B` (repeatable) it judges group B of CURRENT against
// group A of BASE instead, such as two arms of one run; CURRENT is then
// optional (BASE again). It exits 1 when any figure got significantly
// worse, 2 when an input cannot be read or on bad usage, else 0.
func cmdCompare(_ context.Context, args []string, stdout, stderr io.Writer) int {
	var opts compare.CompareOptions
	var format string
	var pairs pairFlag
	fs := compareFlagSet(&opts, &format, &pairs)
	fs.SetOutput(stderr)
	pos, err := parseInterspersed(fs, args)
	if err == nil && len(pairs) > 0 && len(pos) == 1 {
		pos = append(pos, pos[0])
	}
	if err == nil && len(pos) != 2 {
		err = fmt.Errorf("want BASE and CURRENT, got %d arguments", len(pos))
	}
	if err == nil && !slices.Contains(compareFormats, format) {
		err = fmt.Errorf("unknown --format %q (want text, markdown or json)", format)
	}
	if err != nil {
		fmt.Fprintln(stderr, "benchtui compare:", err)
		return exitUsage
	}
	base, err := loadSide("base", pos[0])
	if err == nil {
		var cur []*artifacts.Artifact
		if cur, err = loadSide("current", pos[1]); err == nil {
			if len(pairs) == 0 {
				return printComparison(compare.Compare(base, cur, opts), format, stdout, stderr)
			}
			var c compare.Comparison
			if c, err = compare.ComparePairs(base, cur, pairs, opts); err == nil {
				return printComparison(c, format, stdout, stderr)
			}
		}
	}
	fmt.Fprintln(stderr, "benchtui compare:", err)
	return exitUsage
}

// pairFlag collects compare's --pair BASE=CURRENT values.
type pairFlag []compare.Pair

func (f *pairFlag) String() string {
	if f == nil {
		return ""
	}
	out := make([]string, len(*f))
	for i, p := range *f {
		out[i] = p.String()
	}
	return strings.Join(out, ",")
}

func (f *pairFlag) Set(s string) error {
	p, err := compare.ParsePair(s)
	if err == nil {
		*f = append(*f, p)
	}
	return err
}

// compareFormats are the values of compare --format.
var compareFormats = []string{artreport.FormatText, artreport.FormatMarkdown, artreport.FormatJSON}

// compareFlagSet defines the flags of compare into opts, format and pairs.
func compareFlagSet(opts *compare.CompareOptions, format *string, pairs *pairFlag) *flag.FlagSet {
	fs := flagSet("compare")
	fs.Var(pairs, "pair", "`A=B`: judge group B (of CURRENT) against group A (of BASE), such as two arms of one run;\n"+
		"GROUP/LOAD names one load of a loads: group; repeatable; CURRENT then defaults to BASE")
	fs.StringVar(format, "format", artreport.FormatText, "output `format`: text, markdown or json")
	fs.Var(&thresholdFlag{opts: opts}, "threshold",
		"minimum effect for a verdict: `5%` for the metrics judged by a test, or METRIC=10% for one metric\n"+
			"(repeatable; metrics: "+strings.Join(compare.MetricNames(), ", ")+
			"; rss_slope and fds_slope are judged by their standard errors and absolute floors instead)")
	return fs
}

func printComparison(c compare.Comparison, format string, stdout, stderr io.Writer) int {
	if err := artreport.Render(stdout, c, format); err != nil {
		fmt.Fprintln(stderr, "benchtui compare:", err)
		return exitUsage
	}
	if c.Worse() {
		return exitFail
	}
	return exitOK
}

// loadSide reads one side of a comparison; a side without any artifact is
// an error, as nothing could be compared.
func loadSide(side, path string) ([]*artifacts.Artifact, error) {
	arts, err := artifacts.LoadSet(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", side, err)
	}
	if len(arts) == 0 {
		return nil, fmt.Errorf("%s: no artifacts in %s", side, path)
	}
	return arts, nil
}

// thresholdFlag sets CompareOptions thresholds from "5%" (the default for
// metrics judged by a test) or "p99=10%" (one metric). The % is optional:
// "5" is 5%.
type thresholdFlag struct{ opts *compare.CompareOptions }

func (f *thresholdFlag) String() string {
	if f.opts == nil || f.opts.ThresholdPct == 0 {
		return ""
	}
	return strconv.FormatFloat(f.opts.ThresholdPct, 'g', -1, 64) + "%"
}

func (f *thresholdFlag) Set(s string) error {
	metric, value, named := strings.Cut(s, "=")
	if !named {
		value = metric
	}
	pct, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), "%"), 64)
	if err != nil || pct < 0 || math.IsNaN(pct) || math.IsInf(pct, 0) {
		return fmt.Errorf("threshold %q: want a percentage such as 5%% (0 or more, finite)", s)
	}
	if !named {
		f.opts.ThresholdPct = pct
		return nil
	}
	if !slices.Contains(compare.MetricNames(), metric) {
		return fmt.Errorf("threshold %q: unknown metric %q (want one of %s)", s, metric,
			strings.Join(compare.MetricNames(), ", "))
	}
	if f.opts.Threshold == nil {
		f.opts.Threshold = make(map[string]float64)
	}
	f.opts.Threshold[metric] = pct
	return nil
}
