package merge

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/benchtui/benchtui/artifacts"
)

// TestMergedIntervalsEqualTheWhole: three shards each log 1 s intervals
// of their share of the values on one clock (each shard's ticks a few ms
// off the others', one shard's second 4 empty and left out of its log,
// as the engine does). The merged log has one interval a second whose
// histogram equals that second's values on every shard, its counts add
// up to the whole, and each series point's percentiles are its
// interval's, with the shards' errors summed and shard 0's target figures.
func TestMergedIntervalsEqualTheWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	t0 := time.UnixMilli(1_780_000_000_000)
	const seconds, shards = 8, 3
	whole := make([]*hdrhistogram.Histogram, seconds)
	var parts []artifacts.ShardFile
	var total int64
	for i := range shards {
		log := artifacts.NewIntervalLog(t0)
		var points []artifacts.Point
		jitter := time.Duration(i*7) * time.Millisecond
		for sec := range seconds {
			if whole[sec] == nil {
				whole[sec] = artifacts.NewHistogram()
			}
			h := artifacts.NewHistogram()
			if !(i == 1 && sec == 4) {
				for range 200 + r.IntN(300) {
					v := 1 + r.Int64N(500_000)
					h.RecordValue(v)
					whole[sec].RecordValue(v)
					total++
				}
				from := t0.Add(time.Duration(sec)*time.Second + jitter)
				if err := log.Add(h, from, from.Add(time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			for half := range 2 { // the engine's series: 0.5 s points
				points = append(points, artifacts.Point{T: float64(sec) + 0.5*float64(half+1), DT: 0.5, Errors: 1, InFlight: i + 1, RSSMB: float64(100*i + sec)})
			}
		}
		f := shardOf(t, i, shards, []int64{1, 2, 3})
		f.A.Steps[0].HLogData, f.A.Steps[0].Series = log.String(), points
		parts = append(parts, f)
	}
	m, err := Merge(parts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Steps[0]
	if s.IntervalLog == nil || s.IntervalLog.Len() != seconds || len(s.Series) != seconds {
		t.Fatalf("merged log of %v intervals, %d points; want %d each", s.IntervalLog.Len(), len(s.Series), seconds)
	}
	path := filepath.Join(t.TempDir(), "merged.hlog")
	if err := os.WriteFile(path, []byte(s.IntervalLog.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := artifacts.ReadIntervalLog(path)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for sec, h := range got {
		sum += h.TotalCount()
		if !h.Equals(whole[sec]) {
			t.Errorf("second %d: merged interval of %d values differs from the whole's %d", sec, h.TotalCount(), whole[sec].TotalCount())
		}
		p, pt := artifacts.PercentilesOf(whole[sec]), s.Series[sec]
		if pt.P99MS != p.P99 || pt.P50MS != p.P50 || pt.Errors != 2*shards || pt.InFlight != 1+2+3 || pt.RSSMB != float64(sec) {
			t.Errorf("second %d: point %+v, want p50 %.3f p99 %.3f, 6 errors, 6 in flight, RSS %d", sec, pt, p.P50, p.P99, sec)
		}
	}
	if sum != total {
		t.Errorf("merged intervals count %d values, the shards recorded %d", sum, total)
	}
	parts[2].A.Steps[0].HLogData = ""
	if m, err := Merge(parts, Options{}); err != nil || m.Steps[0].IntervalLog != nil || len(m.Steps[0].Series) != 2*seconds {
		t.Errorf("a shard without a log: err %v, log %v, %d points; want the point-by-point join", err, m.Steps[0].IntervalLog, len(m.Steps[0].Series))
	}
}

// TestMergeRefusesIntervalsOutsideTheStep: a shard's interval log with
// an interval before its first or far past its step is an error naming
// the shard, not a merged series no artifact reader accepts.
func TestMergeRefusesIntervalsOutsideTheStep(t *testing.T) {
	t0 := time.UnixMilli(1_780_000_000_000)
	h := artifacts.NewHistogram()
	h.RecordValue(100)
	for _, tc := range []struct{ from, to time.Duration }{
		{time.Second, (artifacts.MaxStepSeconds + 10) * time.Second}, // past any step
		{-time.Hour, -time.Hour + time.Second},                       // before the shard's first
	} {
		var parts []artifacts.ShardFile
		for i := range 2 {
			log := artifacts.NewIntervalLog(t0)
			if err := log.Add(h, t0, t0.Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			if i == 1 {
				_ = log.Add(h, t0.Add(tc.from), t0.Add(tc.to))
			}
			f := shardOf(t, i, 2, []int64{1, 2})
			f.A.Steps[0].HLogData = log.String()
			parts = append(parts, f)
		}
		if _, err := Merge(parts, Options{}); err == nil || !strings.Contains(err.Error(), "shard1.json") {
			t.Errorf("interval %s to %s: %v, want an error naming shard1.json", tc.from, tc.to, err)
		}
	}
}

// TestMergedInFlightCarriesOver: two shards log 0.5 s intervals but keep
// series points 1 s long (as a long step's series, its points merged in
// pairs), so every other merged interval has no point of either shard.
// Such an interval's in-flight is each shard's last point's, not 0: a
// merged run of 100,000 held streams showed 0 held in a third of its
// points.
func TestMergedInFlightCarriesOver(t *testing.T) {
	t0 := time.UnixMilli(1_780_000_000_000)
	var parts []artifacts.ShardFile
	for i := range 2 {
		log := artifacts.NewIntervalLog(t0)
		var points []artifacts.Point
		for k := range 8 {
			h := artifacts.NewHistogram()
			h.RecordValue(1000)
			from := t0.Add(time.Duration(k) * 500 * time.Millisecond)
			if err := log.Add(h, from, from.Add(500*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			if k%2 == 1 {
				points = append(points, artifacts.Point{T: float64(k+1) / 2, DT: 1, InFlight: 50_000})
			}
		}
		f := shardOf(t, i, 2, []int64{1, 2})
		f.A.Steps[0].HLogData, f.A.Steps[0].Series = log.String(), points
		parts = append(parts, f)
	}
	m, err := Merge(parts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Steps[0].Series) != 8 {
		t.Fatalf("%d merged points, want 8", len(m.Steps[0].Series))
	}
	for k, pt := range m.Steps[0].Series[1:] {
		if pt.InFlight != 100_000 {
			t.Errorf("point %d (t %.1f): in flight %d, want 100000 (both shards' last)", k+1, pt.T, pt.InFlight)
		}
	}
}
