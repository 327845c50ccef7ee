package artifacts_test

import (
	"os"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
)

// TestHLogMustBeAFileBesideTheArtifact: a loaded artifact's hlog is a
// bare .hlog name; a path elsewhere is a damaged (or hostile) file.
func TestHLogMustBeAFileBesideTheArtifact(t *testing.T) {
	data, err := os.ReadFile("testdata/artifact.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, ok := range map[string]bool{"G5-1-step1.hlog": true, "../G5-1-step1.hlog": false, "/etc/passwd": false, "G5.json": false} {
		doc := strings.Replace(string(data), `"histogram":`, `"hlog": "`+name+`", "histogram":`, 1)
		_, err := artifacts.Decode([]byte(doc))
		if (err == nil) != ok || (err != nil && !strings.Contains(err.Error(), "steps[0].hlog")) {
			t.Errorf("hlog %q: %v, want ok %v", name, err, ok)
		}
	}
}
