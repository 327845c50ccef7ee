package report_test

import (
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/artifacts/report"
)

// TestMarkdownFormatsNamedSlope: the rss_slope row of the second target
// (rss_slope[db], its leak judged in compare's TestCompareTargetsByName)
// is formatted as a slope, as rss_slope is.
func TestMarkdownFormatsNamedSlope(t *testing.T) {
	b, c := artifactstest.TargetsStep(0), artifactstest.TargetsStep(0)
	db := *c.Targets["db"]
	db.RSSSlopeMBPerMin = 12
	c.Targets["db"] = &db
	cmp := compare.Compare([]*artifacts.Artifact{artifactstest.Artifact("G1", artifactstest.T0, b)},
		[]*artifacts.Artifact{artifactstest.Artifact("G1", artifactstest.T0, c)}, compare.CompareOptions{})
	var md strings.Builder
	if err := report.WriteMarkdown(&md, cmp); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "12.00 MB/min") {
		t.Errorf("the named slope is not formatted as a slope:\n%s", md.String())
	}
}

// TestReportRowPerTarget: a row per target and their sum, each with the
// memory its kind is read by (a cgroup's working set, not its usage).
func TestReportRowPerTarget(t *testing.T) {
	st := artifactstest.TargetsStep(3)
	db := *st.Targets["db"]
	db.WorkingSetMB = &artifacts.Range{Start: 20, Peak: 31.5, End: 30}
	st.Targets["db"] = &db
	out := report.Report([]*artifacts.Artifact{artifactstest.Artifact("G1", artifactstest.T0, st)})
	for _, want := range []string{"Targets", "| soak | sum ", "140.0 / 138.0 |", "Target CPU peak"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for row, cells := range map[string][]string{"| soak | api ": {"| RSS ", "10.0 / 40.0 / 38.0 |"}, "| soak | db ": {"| working set |", "20.0 / 31.5 / 30.0 |"}} {
		line := lineWith(out, row)
		for _, c := range cells {
			if !strings.Contains(line, c) {
				t.Errorf("row %q lacks %q: %q", row, c, line)
			}
		}
	}
}

// lineWith is the first line of s that holds sub, or "".
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
