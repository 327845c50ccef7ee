package artifactstest

import (
	"bytes"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaFile is docs/artifact.schema.json, the JSON Schema of
// benchtui.artifact/v1, from the module's root.
const SchemaFile = "docs/artifact.schema.json"

// Schema compiles the artifact's JSON Schema at path (SchemaFile from the
// calling package's folder: "../docs/artifact.schema.json" in artifacts),
// with its formats (date-time) asserted.
func Schema(path string) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	return c.Compile(path)
}

// ValidateArtifact checks an artifact's JSON against the schema; the error
// names the failing paths.
func ValidateArtifact(sch *jsonschema.Schema, doc []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not one JSON document: %w", err)
	}
	return sch.Validate(inst)
}
