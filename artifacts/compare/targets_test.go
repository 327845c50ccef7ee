package compare_test

import (
	"testing"

	"github.com/benchtui/benchtui/artifacts/artifactstest"
	. "github.com/benchtui/benchtui/artifacts/compare"
)

// A leak in the second target is judged under its own name and the sum's.
func TestCompareTargetsByName(t *testing.T) {
	b, c := artifactstest.TargetsStep(0), artifactstest.TargetsStep(0)
	db := *c.Targets["db"]
	db.RSSSlopeMBPerMin = 12
	c.Targets["db"] = &db
	sum := *c.TargetsSum
	sum.RSSSlopeMBPerMin = 12
	c.TargetsSum = &sum
	cmp := compareSteps(b, c, CompareOptions{})
	if r := rowOf(t, cmp, "rss_slope[db]"); r.Verdict != Worse {
		t.Errorf("rss_slope[db]: %+v", r)
	}
	if r := rowOf(t, cmp, "rss_slope[sum]"); r.Verdict != Worse {
		t.Errorf("rss_slope[sum]: %+v", r)
	}
	if r := rowOf(t, cmp, "rss_slope[api]"); r.Verdict != Same {
		t.Errorf("rss_slope[api]: %+v", r)
	}
	rowOf(t, cmp, "fds_slope[api]")
}
