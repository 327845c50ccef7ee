package merge

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
)

// TestShardsAndMergeFollowSchema validates, against the schema file, the
// shards of a distributed run and their merge (the shard block,
// histograms): shapes the artifacts package's own tests lack.
func TestShardsAndMergeFollowSchema(t *testing.T) {
	sch, err := artifactstest.Schema(filepath.Join("..", "..", artifactstest.SchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]int64, 300)
	for i := range vals {
		vals[i] = int64(100 + 7*i)
	}
	var shards []artifacts.ShardFile
	for i := range 3 {
		shards = append(shards, shardOf(t, i, 3, vals))
	}
	merged, err := Merge(shards, Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]*artifacts.Artifact{"merge": merged}
	for _, s := range shards {
		all[s.Path] = s.A
	}
	for name, a := range all {
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		if err := artifactstest.ValidateArtifact(sch, b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
