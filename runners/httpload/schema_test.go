package httpload

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestArtifactOfARealRunFollowsSchema runs an open-loop group of two named
// requests against a loopback server through a real engine run (benchtui
// sampling itself), writes its artifact as `run` does and validates the
// file against docs/artifact.schema.json; the artifact's count is the
// server's, so the document validated is a real one.
func TestArtifactOfARealRunFollowsSchema(t *testing.T) {
	t.Parallel()
	srv, served := runnertest.CountingServer(t, 2*time.Millisecond)
	as := runnertest.RunAll(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: schema
    runner: http
    http:
      requests:
        - {name: a, url: "%s/a"}
        - {name: b, url: "%s/b", expect_status: [200]}
    load: {rate: 50, max_in_flight: 8}
    duration: 1s
    thresholds: {p99: 5s, error_rate: 0}
`, srv.URL, srv.URL), nil)
	a := as[0]
	if st := a.Steps[0]; st.Requests == 0 || st.Requests != served.Load() || len(st.ByName) != 2 {
		t.Fatalf("requests %d, server served %d, names %v", st.Requests, served.Load(), st.ByName)
	}
	// The shapes the schema must hold beyond the counts: benchtui's own
	// figures, samples, checks and a series.
	if st := a.Steps[0]; st.Self == nil || st.Samples == nil || len(st.Checks) == 0 || len(st.Series) == 0 {
		t.Errorf("a thin artifact: self %v, samples %v, %d checks, %d points", st.Self, st.Samples, len(st.Checks), len(st.Series))
	}
	path, err := artifacts.Write(t.TempDir(), a)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := artifactstest.Schema(filepath.Join("..", "..", artifactstest.SchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := artifactstest.ValidateArtifact(sch, data); err != nil {
		t.Errorf("the artifact of a real run does not follow the schema: %v\n%s", err, data)
	}
}
