package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/artifacts/compare"
)

// writeRun writes a synthetic one-step artifact of group G5 to a new folder
// and returns the file: a server at rps with latency p50/p99, 40 intervals
// of 1 s with 4% noise.
func writeRun(t *testing.T, seed uint64, started time.Time, rps, p50, p99 float64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	a := artifactstest.Artifact("G5", started, artifactstest.Step(rng, artifactstest.Spec{
		Label: "concurrency=50", Params: map[string]float64{"concurrency": 50},
		RPS: rps, P50: p50, P99: p99, CV: 0.04, Target: true, RSSSlope: 0.5}))
	path, err := artifacts.Write(t.TempDir(), a)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// runCmd calls cmd and returns its exit code, stdout and stderr.
func runCmd(t *testing.T, cmd command, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cmd(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestCompareSameServerExits0(t *testing.T) {
	t.Parallel()
	base := writeRun(t, 1, artifactstest.T0, 5900, 1.2, 8)
	cur := writeRun(t, 2, artifactstest.T0.Add(time.Hour), 5900, 1.2, 8)
	code, out, errOut := runCmd(t, cmdCompare, base, cur)
	if code != exitOK || strings.Contains(out, "worse") {
		t.Fatalf("same server: exit %d, stdout:\n%s\nstderr: %s", code, out, errOut)
	}
	if !strings.Contains(out, "throughput_rps") || !strings.Contains(out, "~") {
		t.Errorf("no table in:\n%s", out)
	}
}

func TestCompareTwiceAsSlowExits1(t *testing.T) {
	t.Parallel()
	base := writeRun(t, 1, artifactstest.T0, 5900, 1.2, 8)
	cur := writeRun(t, 2, artifactstest.T0.Add(time.Hour), 2950, 2.4, 16)
	code, out, errOut := runCmd(t, cmdCompare, base, cur, "--format", "json")
	if code != exitFail {
		t.Fatalf("twice as slow: exit %d, want 1; stdout:\n%s\nstderr: %s", code, out, errOut)
	}
	var doc struct {
		Rows []map[string]any `json:"rows"`
		Warn []string         `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not the JSON document: %v\n%s", err, out)
	}
	verdicts := map[string]any{}
	for _, r := range doc.Rows {
		for _, k := range []string{"group", "step", "metric", "base", "current", "delta_pct", "verdict"} {
			if _, ok := r[k]; !ok {
				t.Errorf("row %v has no %q: the contract's keys stay", r, k)
			}
		}
		verdicts[r["metric"].(string)] = r["verdict"]
	}
	for _, m := range []string{"throughput_rps", "p50", "p99"} {
		if verdicts[m] != "worse" {
			t.Errorf("%s verdict %v, want worse", m, verdicts[m])
		}
	}
	if doc.Warn == nil {
		t.Error(`"warnings" missing: want an array, even empty`)
	}
}

func TestCompareFoldersAndFlagsAfterPositionals(t *testing.T) {
	t.Parallel()
	baseDir, curDir := t.TempDir(), t.TempDir()
	rng := rand.New(rand.NewPCG(3, 3))
	spec := artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: 0.03}
	for i, dir := range []string{baseDir, baseDir, curDir} {
		a := artifactstest.Artifact("G1", artifactstest.T0.Add(time.Duration(i)*time.Hour), artifactstest.Step(rng, spec))
		if i == 0 { // the older base run is twice as fast: it must not be the one compared
			a.Steps[0].LatencyMS.P99 /= 2
		}
		if _, err := artifacts.Write(dir, a); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runCmd(t, cmdCompare, baseDir, "--threshold", "5%", curDir, "--threshold", "p99=10%", "--format=markdown")
	if code != exitOK || !strings.HasPrefix(out, "| group") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr: %s", code, out, errOut)
	}
}

func TestCompareUnreadableExits2NamingFile(t *testing.T) {
	t.Parallel()
	good := writeRun(t, 1, artifactstest.T0, 5900, 1.2, 8)
	damaged := filepath.Join(t.TempDir(), "G5-1.json")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(damaged, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(t.TempDir(), "other.json")
	if err := os.WriteFile(foreign, []byte(`{"schema":"someone.else/v3"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "nope.json")
	for name, args := range map[string][]string{
		"damaged current": {good, damaged},
		"damaged base":    {damaged, good},
		"foreign schema":  {good, foreign},
		"missing":         {missing, good},
	} {
		code, _, errOut := runCmd(t, cmdCompare, args...)
		bad := args[0]
		if bad == good {
			bad = args[1]
		}
		if code != exitUsage || !strings.Contains(errOut, bad) {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming %s", name, code, errOut, bad)
		}
	}
}

func TestCompareUsageExits2(t *testing.T) {
	t.Parallel()
	good := writeRun(t, 1, artifactstest.T0, 5900, 1.2, 8)
	for _, args := range [][]string{
		{good},
		{good, good, good},
		{good, good, "--format", "yaml"},
		{good, good, "--threshold", "p77=5%"},
		{good, good, "--threshold", "lots"},
		{good, good, "--bogus"},
		{good, t.TempDir()}, // an empty folder: nothing to compare with
	} {
		if code, _, errOut := runCmd(t, cmdCompare, args...); code != exitUsage {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", args, code, errOut)
		}
	}
}

func TestThresholdFlag(t *testing.T) {
	t.Parallel()
	var opts compare.CompareOptions
	f := &thresholdFlag{opts: &opts}
	for _, s := range []string{"7%", "p99=10%", "rss_slope=25"} {
		if err := f.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	if opts.ThresholdPct != 7 || opts.Threshold["p99"] != 10 || opts.Threshold["rss_slope"] != 25 {
		t.Errorf("got %+v", opts)
	}
}
