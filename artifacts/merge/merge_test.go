package merge

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/benchtui/benchtui/artifacts"
)

// shardOf is shard i of n of a run whose values are vals: its step
// holds the values j ≡ i mod n, encoded as a shard writes them.
func shardOf(t *testing.T, i, n int, vals []int64) artifacts.ShardFile {
	t.Helper()
	lat, svc := artifacts.NewHistogram(), artifacts.NewHistogram()
	var reqs int64
	for j := i; j < len(vals); j += n {
		lat.RecordValue(vals[j])
		svc.RecordValue(vals[j] / 2)
		reqs++
	}
	enc, err := artifacts.EncodeHistogram(lat)
	if err != nil {
		t.Fatal(err)
	}
	a := &artifacts.Artifact{Schema: artifacts.Schema, Group: artifacts.Group{ID: "G"},
		Shard: &artifacts.ShardInfo{Index: i, Count: n, RunID: "r1", StartAt: time.Unix(100, 0), PlanSHA256: "abc", ToolVersion: "v1"},
		Steps: []artifacts.Step{{Label: "s", Requests: reqs, DurationS: 2, ThroughputRPS: float64(reqs) / 2, Histogram: enc,
			Histograms: artifacts.TimingHistograms(svc, nil), Status: map[string]int64{"200": reqs}}}}
	return artifacts.ShardFile{Path: "shard" + string(rune('0'+i)) + ".json", A: a}
}

// TestMergedShardHistogramsEqualTheWhole: merging the encoded, decoded
// histograms of the shards gives exactly the histogram of every value,
// and the merged counts add up.
func TestMergedShardHistogramsEqualTheWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]int64, 5000)
	whole := artifacts.NewHistogram()
	for j := range vals {
		vals[j] = 1 + r.Int64N(2_000_000)
		whole.RecordValue(vals[j])
	}
	var in []artifacts.ShardFile
	for i := range 3 {
		in = append(in, shardOf(t, i, 3, vals))
	}
	m, err := Merge(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Steps[0]
	got, err := artifacts.DecodeHistogram(s.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equals(whole) {
		t.Fatal("merged histogram differs from the whole's")
	}
	if s.Requests != 5000 || s.Status["200"] != 5000 || s.LatencyMS != artifacts.PercentilesOf(whole) {
		t.Fatalf("merged: %d requests, status %v, latency %+v", s.Requests, s.Status, s.LatencyMS)
	}
	if !m.Shard.Merged || len(m.Shard.Shards) != 3 || m.Run.ID != "r1" {
		t.Fatalf("shard block %+v, run id %q", m.Shard, m.Run.ID)
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := artifacts.Decode(data); err != nil {
		t.Fatalf("the merged artifact does not load back: %v", err)
	}
}

// TestMergeRefusesMismatchedShards names the file of each refusal.
func TestMergeRefusesMismatchedShards(t *testing.T) {
	vals := []int64{1, 2, 3, 4, 5, 6}
	mk := func() []artifacts.ShardFile {
		return []artifacts.ShardFile{shardOf(t, 0, 3, vals), shardOf(t, 1, 3, vals), shardOf(t, 2, 3, vals)}
	}
	cases := map[string]func([]artifacts.ShardFile) []artifacts.ShardFile{
		"run_id":       func(in []artifacts.ShardFile) []artifacts.ShardFile { in[2].A.Shard.RunID = "other"; return in },
		"plan_sha256":  func(in []artifacts.ShardFile) []artifacts.ShardFile { in[2].A.Shard.PlanSHA256 = "x"; return in },
		"tool_version": func(in []artifacts.ShardFile) []artifacts.ShardFile { in[2].A.Shard.ToolVersion = "v2"; return in },
		"count":        func(in []artifacts.ShardFile) []artifacts.ShardFile { in[2].A.Shard.Count = 4; return in },
		"shard2.json: shard.start_at \"1970-01-01T00:01:41Z\" differs": func(in []artifacts.ShardFile) []artifacts.ShardFile {
			in[2].A.Shard.StartAt = in[2].A.Shard.StartAt.Add(time.Second)
			return in
		},
		"shard0.json: shard.count 20000 out of 1..10000": func(in []artifacts.ShardFile) []artifacts.ShardFile {
			for _, f := range in {
				f.A.Shard.Count = 20_000
			}
			return in
		},
		"shard1.json: shard 1 has no step": func(in []artifacts.ShardFile) []artifacts.ShardFile { in[1].A.Steps = nil; return in },
		"both shard":                       func(in []artifacts.ShardFile) []artifacts.ShardFile { in[2].A.Shard.Index = 1; return in },
		"missing":                          func(in []artifacts.ShardFile) []artifacts.ShardFile { return in[:2] },
		"histograms.service": func(in []artifacts.ShardFile) []artifacts.ShardFile {
			in[2].A.Steps[0].Histograms = nil
			return in
		},
	}
	for want, spoil := range cases {
		_, err := Merge(spoil(mk()), Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
	m, err := Merge(mk()[:2], Options{AllowPartial: true})
	if err != nil || !m.Run.Partial {
		t.Fatalf("--allow-partial: %v, partial %v", err, m != nil && m.Run.Partial)
	}
}

// TestMergeFlagsASaturatedGenerator: a shard whose benchtui used 1.9 of
// its 2 CPUs is flagged, in its entry and in a note; one at 0.5 is not.
func TestMergeFlagsASaturatedGenerator(t *testing.T) {
	vals := []int64{100, 200, 300, 400}
	var in []artifacts.ShardFile
	for i, cores := range []float64{0.5, 1.9} {
		f := shardOf(t, i, 2, vals)
		f.A.Run.Host.CPUs = 2
		f.A.Steps[0].Self = &artifacts.TargetStats{CPUCores: cores}
		in = append(in, f)
	}
	m, err := Merge(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Shard.Shards; len(got[0].Saturated) != 0 || len(got[1].Saturated) != 1 || got[1].Saturated[0] != "s" {
		t.Errorf("saturated: %+v", got)
	}
	if !strings.Contains(strings.Join(m.Notes, "\n"), "shard 1's generator saturated its 2 CPUs") {
		t.Errorf("notes %q", m.Notes)
	}
}

// TestHistogramDelta: the delta of a histogram's two states is exactly
// what was recorded between them; states of different histograms have
// none.
func TestHistogramDelta(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	h, between := artifacts.NewHistogram(), artifacts.NewHistogram()
	for range 1000 {
		h.RecordValue(1 + r.Int64N(100_000))
	}
	before := h.Export()
	for range 700 {
		v := 1 + r.Int64N(5_000_000)
		h.RecordValue(v)
		between.RecordValue(v)
	}
	d, ok := artifacts.HistogramDelta(h, hdrhistogram.Import(before))
	if !ok || !d.Equals(between) || d.TotalCount() != 700 {
		t.Fatalf("delta ok=%v of %d values, want the 700 recorded between", ok, d.TotalCount())
	}
	if _, ok := artifacts.HistogramDelta(between, h); ok {
		t.Fatal("a histogram with fewer counts is not a later state")
	}
}
