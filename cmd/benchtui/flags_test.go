package main

import (
	"os"
	"strings"
	"testing"
)

// TestFlagsOutOfRangeAreRefused: a duration or count of 0 or less (a
// flag or its variable), a threshold that is not a finite percentage and
// a start past any sane wait are usage errors naming the flag or the
// variable, never values taken for unset.
func TestFlagsOutOfRangeAreRefused(t *testing.T) {
	plan := writePlanText(t, "version: 1\ngroups: []\n")
	for _, c := range []struct {
		env  string
		cmd  command
		args []string
		want string
	}{
		{"", cmdRun, []string{plan, "--duration", "-1s"}, `invalid value "-1s" for flag -duration: want more than 0`},
		{"", cmdRun, []string{plan, "--duration", "0s"}, `invalid value "0s" for flag -duration: want more than 0`},
		{"", cmdRun, []string{plan, "--count", "0"}, `invalid value "0" for flag -count: want 1 to 100`},
		{"", cmdRun, []string{plan, "--export-json", "r.json", "--junit", "./r.json"}, "--export-json and --junit name the same file ./r.json"},
		{"-5s", cmdRun, []string{plan}, `environment BENCHTUI_DURATION="-5s": want a duration (it sets -duration): want more than 0`},
		{"", cmdConsole, []string{plan, "--duration", "0s"}, `invalid value "0s" for flag -duration`},
		{"", cmdCompare, []string{plan, plan, "--threshold", "NaN%"}, `threshold "NaN%": want a percentage`},
		{"", cmdCompare, []string{plan, plan, "--threshold", "p99=+Inf"}, `threshold "p99=+Inf": want a percentage`},
		{"", cmdRun, []string{plan, "--shard", "0/1", "--run-id", "r", "--start-at", "1e18"}, `--start-at "1e18": want RFC3339`},
		{"", cmdRun, []string{plan, "--shard", "0/1", "--run-id", "r", "--start-at", "9999-12-31T00:00:00Z"}, "more than 7 days ahead"},
		{"", cmdRun, []string{plan, "--shard", "0/1", "--run-id", "r", "--start-at", "1e9", "--start-tolerance", "1h"}, "--start-tolerance 1h0m0s: want a duration from 0 to 10m0s"},
		{"", cmdRun, []string{plan, "--start-tolerance", "5s"}, "--start-tolerance and --ready-file need --shard I/N"},
	} {
		t.Setenv("BENCHTUI_DURATION", c.env)
		code, _, stderr := runCmd(t, c.cmd, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%q (BENCHTUI_DURATION=%q): exit %d, stderr %q; want 2 and %q", c.args, c.env, code, stderr, c.want)
		}
	}
}

// TestCSVCellsAreNoFormulas: a cell a spreadsheet would take for a
// formula (here the artifacts path) gets a ' in front; numbers, negative
// ones too, stay numbers.
func TestCSVCellsAreNoFormulas(t *testing.T) {
	for in, want := range map[string]string{
		"=HYPERLINK(x)/g.json": "'=HYPERLINK(x)/g.json", "+1+cmd": "'+1+cmd", "-x": "'-x", "@SUM(A1)": "'@SUM(A1)",
		"\t=1": "'\t=1", "-3.5": "-3.5", "+2e-3": "+2e-3", "-Inf": "'-Inf", "concurrency=5": "concurrency=5", "": "",
	} {
		if got := inertCell(in); got != want {
			t.Errorf("inertCell(%q) = %q, want %q", in, got, want)
		}
	}
	t.Chdir(t.TempDir())
	dir := "=HYPERLINK(x)"
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	plan := writePlanText(t, `version: 1
groups:
  - id: g
    runner: http
    http: {requests: [{url: "http://127.0.0.1:1/"}]}
    load: {rate: 20, max_in_flight: 2}
    duration: 200ms
`)
	code, stdout, stderr := runCmd(t, cmdRun, plan, "-o", dir, "--format", "csv")
	if code != exitOK || !strings.Contains(stdout, ",'"+dir) || strings.Contains(stdout, ","+dir) {
		t.Errorf("exit %d, csv:\n%s\nstderr: %s", code, stdout, stderr)
	}
}
