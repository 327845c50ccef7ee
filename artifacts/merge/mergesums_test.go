package merge

import (
	"math"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
)

// TestMergeRefusesOverflowingSums: shards whose counts are each in range
// but whose sum is not are refused, naming the file and the figure,
// never merged into a negative count or an infinite rate.
func TestMergeRefusesOverflowingSums(t *testing.T) {
	vals := []int64{1, 2, 3, 4}
	cases := map[string]func(s *artifacts.Step){
		"shard1.json: step s: requests: 9223372036854775807 + 9223372036854775807 overflows": func(s *artifacts.Step) { s.Requests = math.MaxInt64 },
		"shard1.json: step s: dropped: 4611686018427387904 + 4611686018427387904 overflows":  func(s *artifacts.Step) { s.Dropped = 1 << 62 },
		"shard1.json: step s: status.200: ":                                                  func(s *artifacts.Step) { s.Status["200"] = math.MaxInt64 },
		"shard1.json: step s: by_name.a.requests: ": func(s *artifacts.Step) {
			s.ByName = map[string]artifacts.NamedStep{"a": {Requests: math.MaxInt64, Histogram: s.Histogram}}
		},
		"shard1.json: step s: throughput_rps: ": func(s *artifacts.Step) { s.ThroughputRPS = 6e14 },
		"shard1.json: step s: series[0].errors: ": func(s *artifacts.Step) {
			s.Series = []artifacts.Point{{T: 1, Errors: math.MaxInt64}}
		},
	}
	for want, spoil := range cases {
		in := []artifacts.ShardFile{shardOf(t, 0, 2, vals), shardOf(t, 1, 2, vals)}
		for _, f := range in {
			spoil(&f.A.Steps[0])
		}
		m, err := Merge(in, Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v (merged %v), want an error with %q", err, m != nil, want)
		}
	}
}
