package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestLostStdoutExitsNonZero: run's summary in every format, written to
// a full disk (/dev/full), exits 1 with the reason on stderr, the
// artifact still written.
func TestLostStdoutExitsNonZero(t *testing.T) {
	t.Parallel()
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer full.Close()
	srv, _ := runnertest.CountingServer(t, time.Millisecond)
	plan := writePlanText(t, `version: 1
groups:
  - id: g
    runner: http
    http: {requests: [{url: "`+srv.URL+`/"}]}
    load: {concurrency: 1}
    duration: 200ms
`)
	for _, format := range runFormats {
		t.Run(format, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			out := t.TempDir()
			c := startBinaryTo(t, ctx, full, "run", plan, "-o", out, "--format", format)
			code := c.wait()
			if code != exitFail || !strings.Contains(c.stderr.String(), "no space left on device") {
				t.Errorf("exit %d, want 1 with the reason; stderr:\n%s", code, c.stderr.String())
			}
			if len(loadArtifacts(t, out)) != 1 {
				t.Errorf("no artifact in %s", out)
			}
		})
	}
}
