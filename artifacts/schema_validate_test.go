package artifacts_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
)

// TestArtifactsFollowSchema validates artifacts against
// docs/artifact.schema.json: the repository's own (testdata), those the
// report and compare tests build, and one merged from shards; then shows
// the schema refuses what no artifact holds.
func TestArtifactsFollowSchema(t *testing.T) {
	sch, err := artifactstest.Schema(filepath.Join("..", artifactstest.SchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	fixture, err := os.ReadFile(filepath.Join("testdata", "artifact.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := artifactstest.ValidateArtifact(sch, fixture); err != nil {
		t.Errorf("testdata/artifact.json: %v", err)
	}
	base, current := artifactstest.FixtureRuns()
	for _, a := range append(base, current...) {
		dir := t.TempDir()
		path, err := artifacts.Write(dir, a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := artifactstest.ValidateArtifact(sch, b); err != nil {
			t.Errorf("%s as written: %v", a.Group.ID, err)
		}
	}

	for name, edit := range map[string]func(map[string]any){
		"an unknown field": func(a map[string]any) { step(a)["request_count"] = 1 },
		"a count as text":  func(a map[string]any) { step(a)["requests"] = "12" },
		"no requests":      func(a map[string]any) { delete(step(a), "requests") },
		"another schema":   func(a map[string]any) { a["schema"] = "benchtui.artifact/v2" },
		"a bad start time": func(a map[string]any) { a["run"].(map[string]any)["started"] = "yesterday" },
		"a fractional count": func(a map[string]any) {
			step(a)["errors"] = 1.5
		},
	} {
		var a map[string]any
		if err := json.Unmarshal(fixture, &a); err != nil {
			t.Fatal(err)
		}
		edit(a)
		b, _ := json.Marshal(a)
		if err := artifactstest.ValidateArtifact(sch, b); err == nil {
			t.Errorf("the schema accepts an artifact with %s", name)
		} else if !strings.Contains(err.Error(), "jsonschema validation failed") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func step(a map[string]any) map[string]any {
	return a["steps"].([]any)[0].(map[string]any)
}
