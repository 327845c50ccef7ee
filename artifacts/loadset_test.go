package artifacts_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
)

// writeRuns writes one artifact per (group, hour) into dir.
func writeRuns(t *testing.T, dir string, runs map[string][]int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	for id, hours := range runs {
		for _, h := range hours {
			a := artifactstest.Artifact(id, artifactstest.T0.Add(time.Duration(h)*time.Hour),
				artifactstest.Step(rng, artifactstest.Spec{RPS: 100, P50: 1, P99: 2, CV: 0.05, Points: 8}))
			if _, err := artifacts.Write(dir, a); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestLoadSetNewestPerGroup(t *testing.T) {
	dir := t.TempDir()
	writeRuns(t, dir, map[string][]int{"G10": {1}, "G2": {1, 3, 2}})
	arts, err := artifacts.LoadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(arts) != 2 || arts[0].Group.ID != "G2" || arts[1].Group.ID != "G10" {
		t.Fatalf("got %d artifacts, want G2 then G10", len(arts))
	}
	if got := arts[0].Run.Started; !got.Equal(artifactstest.T0.Add(3 * time.Hour)) {
		t.Errorf("G2 started %v, want the newest run", got)
	}
	all, err := artifacts.LoadAll(dir)
	if err != nil || len(all) != 4 || all[0].Run.Started.After(all[3].Run.Started) {
		t.Errorf("LoadAll: %d artifacts, err %v; want 4, oldest first", len(all), err)
	}
}

func TestLoadSetEmptyFolderIsNoBaseline(t *testing.T) {
	arts, err := artifacts.LoadSet(t.TempDir())
	if err != nil || len(arts) != 0 {
		t.Errorf("empty folder: %d artifacts, err %v", len(arts), err)
	}
	missing := filepath.Join(t.TempDir(), "gone")
	if _, err := artifacts.LoadSet(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing path: err %v, want one naming %s", err, missing)
	}
}

func TestLoadSetDamagedFileNamed(t *testing.T) {
	dir := t.TempDir()
	writeRuns(t, dir, map[string][]int{"G1": {1}})
	damaged := filepath.Join(dir, artifacts.FileName("G1", artifactstest.T0.Add(9*time.Hour)))
	if err := os.WriteFile(damaged, []byte(`{"schema": "benchtui.artifact/v1", "steps": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, load := range []func(...string) ([]*artifacts.Artifact, error){artifacts.LoadSet, artifacts.LoadAll} {
		if _, err := load(dir); err == nil || !strings.Contains(err.Error(), damaged) {
			t.Errorf("err %v, want one naming %s", err, damaged)
		}
	}
}
