package artifactstest

import (
	"testing"

	"github.com/benchtui/benchtui/artifacts"
)

// LoadDir loads every artifact in dir (artifacts.List), keyed by group ID;
// a folder that cannot be listed or an artifact that cannot be read fails t.
func LoadDir(t testing.TB, dir string) map[string]*artifacts.Artifact {
	t.Helper()
	entries, err := artifacts.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*artifacts.Artifact{}
	for _, e := range entries {
		a, err := artifacts.Load(e.Path)
		if err != nil {
			t.Fatal(err)
		}
		out[a.Group.ID] = a
	}
	return out
}
