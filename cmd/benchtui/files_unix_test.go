//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNonRegularInputsAreRefused: a FIFO (which nothing writes to) as a
// data file, a plan or a baseline, and a link to /dev/zero as a data
// file, are refused at once (exit 2, naming what they are) instead of
// hanging or being read.
func TestNonRegularInputsAreRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := func(name string) string {
		path := filepath.Join(dir, name)
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	dataPlan := func(data string) string {
		return writePlanText(t, `version: 1
groups:
  - id: g
    runner: http
    data: {file: "`+data+`"}
    http: {requests: [{url: "http://127.0.0.1:1/{{.id}}"}]}
    load: {concurrency: 1}
    duration: 1s
`)
	}
	zero := filepath.Join(dir, "zero.csv")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	okPlan := writePlanText(t, "version: 1\ngroups:\n  - {id: g, runner: http, http: {requests: [{url: \"http://127.0.0.1:1/\"}]}, load: {concurrency: 1}, duration: 1s}\n")
	for _, c := range []struct {
		name string
		cmd  command
		args []string
		want string
	}{
		{"fifo data file", cmdValidate, []string{dataPlan(fifo("x.csv"))}, "x.csv is a FIFO, not a regular file"},
		{"device data file", cmdValidate, []string{dataPlan(zero)}, "zero.csv is a device, not a regular file"},
		{"fifo plan", cmdValidate, []string{fifo("plan.yaml")}, "plan.yaml is a FIFO, not a regular file"},
		{"fifo baseline", cmdRun, []string{okPlan, "-o", dir, "--baseline", fifo("base.json")}, "base.json is a FIFO, not a regular file"},
		{"fifo artifact", cmdReport, []string{fifo("a.json")}, "a.json is a FIFO, not a regular file"},
	} {
		done := make(chan struct{})
		var code int
		var stderr string
		go func() {
			defer close(done)
			code, _, stderr = runCmd(t, c.cmd, c.args...)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still running after 10s", c.name)
		}
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.name, code, stderr, c.want)
		}
	}
}
