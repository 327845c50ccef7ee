package engine

import (
	"testing"

	"github.com/benchtui/benchtui/runners/watch"
)

// TestSumOfTargetsKeepsWorkingSetOnlyWhenAllHaveIt: three cgroup pods'
// working sets add up; a plain process among them leaves the sum's
// working set absent rather than a sum of two of three.
func TestSumOfTargetsKeepsWorkingSetOnlyWhenAllHaveIt(t *testing.T) {
	pod := func(ws int64) watch.Sample { return watch.Sample{RSSBytes: 2 * ws, WorkingSetBytes: ws, FDs: 10} }
	var pods watch.Sample
	for _, ws := range []int64{30 << 20, 25 << 20, 24 << 20} {
		addToSum(&pods, pod(ws))
	}
	if pods.WorkingSetBytes != 79<<20 || pods.RSSBytes != 158<<20 || pods.FDs != 30 || pods.PSSBytes != -1 {
		t.Errorf("three pods: %+v, want working set 79 MiB, RSS 158 MiB, 30 fds, no PSS", pods)
	}
	var mixed watch.Sample
	for _, s := range []watch.Sample{pod(30 << 20), {RSSBytes: 10 << 20, FDs: 5}, pod(24 << 20)} {
		addToSum(&mixed, s)
	}
	if mixed.WorkingSetBytes != -1 || mixed.RSSBytes != 118<<20 {
		t.Errorf("two pods and a process: %+v, want no working set, RSS 118 MiB", mixed)
	}
}
