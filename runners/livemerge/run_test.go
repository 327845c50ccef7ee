package livemerge

import (
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchtui/benchtui/artifacts"
)

// shardLines are one shard's two live lines of a step, a second apart:
// its running histogram after first, then after first and then.
func shardLines(t *testing.T, shard int, first, then []int64, errs int64, whole *hdrhistogram.Histogram) []Line {
	t.Helper()
	h := artifacts.NewHistogram()
	var out []Line
	for i, vals := range [][]int64{first, then} {
		for _, v := range vals {
			h.RecordValue(v)
			if i == 1 {
				whole.RecordValue(v)
			}
		}
		enc, err := artifacts.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Line{Version: 1, RunID: "r", Shard: shard, Count: 2, Group: "g", Step: 1, Steps: 1, Phase: "measure",
			At: time.Unix(100+int64(i), 0), Elapsed: float64(i + 1), Requests: h.TotalCount(), Errors: errs * int64(i+1), Hist: enc})
	}
	return out
}

func repeat(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestLiveViewNowIsTheLatestSecond: the live view's "now" (Interval, and
// the series point) is the shards' last second merged, exactly: its p99
// is that of the operations recorded between each shard's two lines, its
// rate theirs, its errors that second's; the step's so far stays Total.
func TestLiveViewNowIsTheLatestSecond(t *testing.T) {
	r := NewRun(nil)
	second := artifacts.NewHistogram()
	a := shardLines(t, 0, repeat(2_000, 500), repeat(30_000, 100), 3, second)
	b := shardLines(t, 1, repeat(2_000, 500), repeat(50_000, 120), 4, second)
	for _, l := range []Line{a[0], b[0]} {
		r.Add(l)
	}
	r.mu.Lock()
	snap, _ := r.snapshotLocked("g")
	r.mu.Unlock()
	if snap.Interval != snap.Total {
		t.Errorf("before a second line the live view's now %+v, want the step so far %+v", snap.Interval, snap.Total)
	}
	for _, l := range []Line{a[1], b[1]} {
		r.Add(l)
	}
	r.mu.Lock()
	snap, _ = r.snapshotLocked("g")
	r.mu.Unlock()
	want := artifacts.PercentilesOf(second)
	if now := snap.Interval; now.P99 != want.P99 || now.P50 != want.P50 || now.RPS != 220 || now.Requests != 220 {
		t.Errorf("now %+v, want the last second's 220 operations at 220/s, p50 %.1f p99 %.1f", now, want.P50, want.P99)
	}
	if snap.Total.Requests != 1220 || snap.Total.P50 != 2 {
		t.Errorf("so far %+v, want 1220 operations, p50 2 ms", snap.Total)
	}
	pts := snap.Series
	if last := pts[len(pts)-1]; len(pts) != 2 || last.P99MS != want.P99 || last.Errors != 7 || last.RPS != 220 {
		t.Errorf("series %+v, want a second point of the last second: p99 %.1f, 7 errors, 220/s", pts, want.P99)
	}
}

// TestLiveViewNamesLaggingShards: the console's step line names a shard
// silent past --stale and, once the step has run that long, one that sent
// no line of it; shards that keep up are not named.
func TestLiveViewNamesLaggingShards(t *testing.T) {
	r := NewRun(nil)
	r.Stale = 5 * time.Second
	now := time.Now()
	for i, at := range []time.Time{now, now.Add(-8 * time.Second)} {
		r.Add(Line{Version: 1, Shard: i, Count: 3, Group: "g", Step: 1, Steps: 1, Label: "c=3", Phase: "measure", At: at, Elapsed: 10})
	}
	r.mu.Lock()
	snap, _ := r.snapshotLocked("g")
	r.mu.Unlock()
	if want := "c=3 · 2/3 shards · s1 stale 8s, s2 missing"; snap.StepLabel != want {
		t.Errorf("step line %q, want %q", snap.StepLabel, want)
	}
}
