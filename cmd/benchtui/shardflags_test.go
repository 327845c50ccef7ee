package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners"
)

// TestStartToleranceWidensTheMissedStart: a shard 10 s past its start
// time exits 3 with the default 2 s tolerance and goes on with
// --start-tolerance 1m; the message names the tolerance it judged by.
func TestStartToleranceWidensTheMissedStart(t *testing.T) {
	t.Parallel()
	late := runners.Shard{Index: 0, Count: 2, RunID: "r", StartAt: time.Now().Add(-10 * time.Second)}
	var stderr bytes.Buffer
	if code := prepareShard(late, nil, &stderr); code != exitMissedStart || !strings.Contains(stderr.String(), "(tolerance 2s)") {
		t.Errorf("10 s late, default tolerance: exit %d, %q; want 3 naming 2s", code, stderr.String())
	}
	late.Tolerance = time.Minute
	stderr.Reset()
	if code := prepareShard(late, nil, &stderr); code != exitOK {
		t.Errorf("10 s late, --start-tolerance 1m: exit %d, %q; want 0", code, stderr.String())
	}
}
