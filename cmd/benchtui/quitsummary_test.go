package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestSummaryLinesKeepTo80: the cancelled groups are all listed, and no
// line of the summary is wider than 80 columns.
func TestSummaryLinesKeepTo80(t *testing.T) {
	t.Parallel()
	ids := []string{"work-open", "sweep", "leak-soak", "sse-flood", "quic-pooled", "quic-fresh",
		"h3-ping", "cold-start", "shutdown", "a-group-with-a-rather-long-identifier", "pg-insert"}
	runs := []string{"ping  stopped (quit)\n  bench-results/ping-1796092734104.json (partial)"}
	lines := summaryLines(runs, ids)
	if lines[0] != "benchtui: 1 run" || lines[1] != "  ping  stopped (quit)" || lines[2] != "    bench-results/ping-1796092734104.json (partial)" {
		t.Errorf("head %q", lines[:2])
	}
	text := strings.Join(lines, "\n")
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > summaryWidth {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	for _, id := range ids {
		if !strings.Contains(text, id) {
			t.Errorf("%s not in the summary:\n%s", id, text)
		}
	}
	if !strings.Contains(lines[3], "not run, queued when the console quit: work-open, sweep,") || len(lines) < 5 {
		t.Errorf("cancelled groups not listed on wrapped lines:\n%s", text)
	}
	if summaryLines(nil, nil) != nil {
		t.Error("a summary when nothing ran")
	}
}

// TestQuitSummaryUnderTmux: run all on the demo plan in an 80-column
// window, quit during the first group: the summary lists the groups the
// quit cancelled, and the artifact, in a folder with a long name, goes
// on a line of its own rather than wrapping.
func TestQuitSummaryUnderTmux(t *testing.T) {
	t.Parallel()
	out := "results-in-a-folder-with-a-long-name" // in the work folder
	c := startConsole(t, "summary", filepath.Join(t.TempDir(), "work"), "--duration 30s -o "+out, 80, 30)
	c.waitFor("the groups", `ping\s+idle`)
	c.send("a")
	c.waitFor("ping measuring, the rest queued", `measure`, `work-open\s+queued`)
	c.send("q")
	c.waitFor("the question", `q again to stop`)
	c.send("q")
	screen := c.waitFor("the summary", `exit=0`, `benchtui: 1 run\n`, `(?m)^  ping\s+stopped \(quit\)$`,
		`(?m)^    `+regexp.QuoteMeta(out)+`/ping-[0-9]+\.json \(partial\)$`,
		`(?m)^  not run, queued when the console quit: work-open, sweep,`)
	summary := screen[strings.Index(screen, "benchtui: 1 run"):]
	for _, id := range []string{"work-open", "sweep", "leak-soak", "h3-ping", "cold-start", "shutdown"} {
		if !strings.Contains(summary, id) {
			t.Errorf("%s not listed as cancelled:\n%s", id, summary)
		}
	}
}

// TestConsoleExitsLikeRun: the console exits 1 once a run it made failed
// a check, as run does, and 0 when every check held; against a real
// loopback server.
func TestConsoleExitsLikeRun(t *testing.T) {
	t.Parallel()
	srv, _ := runnertest.CountingServer(t, 0)
	for _, c := range []struct {
		name, limit, code string
	}{{"fail", "min_rps: 1000000000", "exit=1"}, {"pass", "min_rps: 1", "exit=0"}} {
		t.Run(c.name, func(t *testing.T) {
			cwd := filepath.Join(t.TempDir(), "work")
			os.MkdirAll(cwd, 0o755)
			plan := "version: 1\ngroups:\n  - id: quick\n    runner: http\n    http: {requests: [{url: \"" + srv.URL +
				"/q\"}]}\n    load: {concurrency: 2}\n    duration: 1s\n    thresholds: {" + c.limit + "}\n"
			if err := os.WriteFile(filepath.Join(cwd, "bench.yaml"), []byte(plan), 0o644); err != nil {
				t.Fatal(err)
			}
			con := startConsole(t, "exit-"+c.name, cwd, "", 100, 30)
			con.waitFor("the group", `quick\s+idle`)
			con.send("Enter")
			con.waitFor("the run ended", `quick: artifact bench-results/quick-`)
			con.send("q")
			con.waitFor("the exit code", c.code)
		})
	}
}
