package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/benchtui/benchtui/runners/runnertest"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of testdata/")

// TestRunFormatCSVAndJSON runs a loopback server twice, the first run
// in CSV, the second in JSON against the first as baseline, and checks
// both outputs against their golden structure (figures vary: the CSV
// header and the JSON key paths), the JSON against
// docs/run-summary.schema.json, and that progress stayed on stderr.
func TestRunFormatCSVAndJSON(t *testing.T) {
	t.Parallel()
	srv, _ := runnertest.CountingServer(t, time.Millisecond)
	pl := writePlan(t, srv.URL, "")
	base := t.TempDir()
	args := []string{pl, "-g", "closed", "--duration", "500ms"}
	code, stdout, stderr := runCmd(t, cmdRun, append(args, "-o", base, "--format", "csv")...)
	if code != exitOK {
		t.Fatalf("csv run: exit %d\n%s", code, stderr)
	}
	checkCSV(t, stdout)
	code, stdout, stderr = runCmd(t, cmdRun, append(args, "-o", t.TempDir(), "--format", "json", "--baseline", base)...)
	if !strings.Contains(stderr, "closed step 1/1") || strings.Contains(stdout, "closed step") {
		t.Errorf("progress belongs on stderr only; stderr:\n%s", stderr)
	}
	doc := checkJSON(t, stdout)
	if doc.ExitCode != code || doc.Status != runStatus(code, false) {
		t.Errorf("summary says exit %d (%s), the run exited %d", doc.ExitCode, doc.Status, code)
	}
	g := doc.Groups[0]
	if _, err := os.Stat(g.Artifact); err != nil || len(g.Steps) != 1 || g.Steps[0].Requests == 0 || len(g.Steps[0].Verdicts) == 0 {
		t.Errorf("group %+v: want its artifact on disk, one step with requests and verdicts (%v)", g, err)
	}
}

// checkCSV checks the header against the golden one and that the one
// row has a figure in every numeric column.
func checkCSV(t *testing.T, out string) {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("csv: %d rows, %v, want a header and one step:\n%s", len(rows), err, out)
	}
	golden(t, "run-summary.csv.golden", strings.Join(rows[0], ",")+"\n")
	for i, col := range rows[0] {
		if strings.HasSuffix(col, "_ms") || strings.HasSuffix(col, "_rps") || col == "requests" {
			if _, err := strconv.ParseFloat(rows[1][i], 64); err != nil {
				t.Errorf("csv column %s: %q is no number", col, rows[1][i])
			}
		}
	}
}

// checkJSON validates out against the schema, compares its key paths
// with the golden ones and decodes it.
func checkJSON(t *testing.T, out string) runSummary {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(filepath.Join("..", "..", "docs", "run-summary.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("the summary does not follow docs/run-summary.schema.json: %v\n%s", err, out)
	}
	if sch.Validate(map[string]any{"schema": runSummarySchema}) == nil {
		t.Error("the schema accepts a summary without groups")
	}
	var paths []string
	keyPaths(inst, "", &paths)
	slices.Sort(paths)
	golden(t, "run-summary.json.golden", strings.Join(slices.Compact(paths), "\n")+"\n")
	var doc runSummary
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Groups) != 1 {
		t.Fatalf("summary: %v, %d groups", err, len(doc.Groups))
	}
	return doc
}

// optionalKeys are left out of the golden key paths: whether a verdict
// has a p-value or an interval depends on the figures.
var optionalKeys = map[string]bool{"p": true, "samples": true, "base_ci_pct": true, "current_ci_pct": true,
	"base_se": true, "current_se": true, "base_span_s": true, "current_span_s": true, "notes": true,
	"n_base": true, "n_current": true, "note": true, "stopped_why": true, "error": true}

// keyPaths appends the path of every key of v ("groups[].id").
func keyPaths(v any, at string, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if !optionalKeys[k] {
				*out = append(*out, at+"."+k)
				keyPaths(e, at+"."+k, out)
			}
		}
	case []any:
		for _, e := range v {
			keyPaths(e, at+"[]", out)
		}
	}
}

// golden compares got with testdata/name, rewriting it with -update and
// leaving testdata/name.got on a mismatch.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, []byte(got)) {
		os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("%s differs from the golden file; got in %s.got:\n%s", name, path, got)
	}
}
