package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
)

func TestReportMarkdownToStdout(t *testing.T) {
	t.Parallel()
	before := writeRun(t, 1, artifactstest.T0, 5900, 1.2, 8)
	after := writeRun(t, 2, artifactstest.T0.Add(time.Hour), 2950, 2.4, 16)
	code, out, errOut := runCmd(t, cmdReport, before, after)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"## G5 — Synthetic G5", "### Before/after", "RSS slope, tail", "worse"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestReportHTMLToFile(t *testing.T) {
	t.Parallel()
	dir := filepath.Dir(writeRun(t, 1, artifactstest.T0, 5900, 1.2, 8))
	out := filepath.Join(t.TempDir(), "report.html")
	code, stdout, errOut := runCmd(t, cmdReport, dir, "--format", "html", "-o", out)
	if code != exitOK || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(data); !strings.HasPrefix(s, "<!DOCTYPE html>") || strings.Count(s, "<svg") != 3 {
		t.Errorf("not a report with three charts:\n%.400s", s)
	}
}

func TestReportErrorsExit2(t *testing.T) {
	t.Parallel()
	damaged := filepath.Join(t.TempDir(), "G1-5.json")
	if err := os.WriteFile(damaged, []byte(`{"schema":"benchtui.artifact/v1","group":`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {damaged}, {t.TempDir()}, {damaged, "--format", "pdf"}} {
		code, _, errOut := runCmd(t, cmdReport, args...)
		if code != exitUsage {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if len(args) == 1 && args[0] == damaged && !strings.Contains(errOut, damaged) {
			t.Errorf("error %q does not name %s", errOut, damaged)
		}
	}
}

// TestReportPercentiles: --percentiles prints the one step's .hgrm (Java's
// layout, checked against Java in the artifacts tests) to stdout, refuses
// several steps without -o DIR naming how, and with -o DIR writes one
// <artifact>-step<N>.hgrm per step.
func TestReportPercentiles(t *testing.T) {
	t.Parallel()
	art := filepath.Join("..", "..", "artifacts", "testdata", "artifact.json")
	a, err := artifacts.Load(art)
	if err != nil {
		t.Fatal(err)
	}
	h, err := artifacts.DecodeHistogram(a.Steps[0].Histogram)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, cmdReport, art, "--percentiles")
	if code != exitOK || out != artifacts.HGRM(h) || !strings.HasPrefix(out, "       Value     Percentile TotalCount 1/(1-Percentile)\n\n") {
		t.Fatalf("exit %d: %s\n%.300s", code, errOut, out)
	}
	if code, _, _ := runCmd(t, cmdReport, art, "--percentiles", "--format", "html"); code != exitUsage {
		t.Errorf("--percentiles --format html: exit %d, want 2", code)
	}
	dir := t.TempDir()
	a.Steps = append(a.Steps, a.Steps[0])
	a.Steps[1].Label = "concurrency=60"
	two, err := artifacts.Write(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCmd(t, cmdReport, two, "--percentiles"); code != exitUsage || !strings.Contains(errOut, "-o DIR") {
		t.Errorf("two steps to stdout: exit %d, %q; want 2 and a hint at -o DIR", code, errOut)
	}
	out = filepath.Join(dir, "hgrm")
	code, stdout, errOut := runCmd(t, cmdReport, art, "--percentiles", "-o", out)
	name := artifacts.HGRMName(artifacts.FileName(a.Group.ID, a.Run.Started), 0)
	got, err := os.ReadFile(filepath.Join(out, name))
	if code != exitOK || err != nil || string(got) != artifacts.HGRM(h) || !strings.Contains(stdout, name) {
		t.Errorf("-o DIR: exit %d (%s), stdout %q, %s: %v", code, errOut, stdout, name, err)
	}
	one := filepath.Join(dir, "one.hgrm")
	code, _, errOut = runCmd(t, cmdReport, art, "--percentiles", "-o", one)
	if got, err := os.ReadFile(one); code != exitOK || err != nil || string(got) != artifacts.HGRM(h) {
		t.Errorf("-o FILE.hgrm: exit %d (%s): %v", code, errOut, err)
	}
}
