package artifacts

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var updateSchema = flag.Bool("update-schema", false, "rewrite docs/artifact.schema.json from the Go types")

// schemaPath is docs/artifact.schema.json from this package's folder.
var schemaPath = filepath.Join("..", "docs", "artifact.schema.json")

// TestArtifactSchemaFile holds docs/artifact.schema.json to the schema the
// Go types give (schema_gen_test.go): a field added to, renamed in or
// removed from the types fails here until the file is regenerated with
// go test ./artifacts -run TestArtifactSchemaFile -update-schema.
func TestArtifactSchemaFile(t *testing.T) {
	doc, err := artifactSchema()
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *updateSchema {
		if err := os.WriteFile(schemaPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not the schema of the Go types: go test ./artifacts -run TestArtifactSchemaFile -update-schema rewrites it (then check its diff)", schemaPath)
	}
}

// TestFullArtifactFollowsSchema validates, against the schema file, the
// artifact with every field set (fixture): the shapes the external test's
// artifacts (schema_validate_test.go) lack. The shards of a distributed
// run and their merge are validated in artifacts/merge.
func TestFullArtifactFollowsSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Error(err)
	}
}
