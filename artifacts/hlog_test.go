package artifacts_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// TestHLogMustBeAFileBesideTheArtifact: a loaded artifact's hlog is a
// bare .hlog name; a path elsewhere is a damaged (or hostile) file.
func TestHLogMustBeAFileBesideTheArtifact(t *testing.T) {
	data, err := os.ReadFile("testdata/artifact.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, ok := range map[string]bool{"G5-1-step1.hlog": true, "../G5-1-step1.hlog": false, "/etc/passwd": false, "G5.json": false} {
		doc := strings.Replace(string(data), `"histogram":`, `"hlog": "`+name+`", "histogram":`, 1)
		_, err := artifacts.Decode([]byte(doc))
		if (err == nil) != ok || (err != nil && !strings.Contains(err.Error(), "steps[0].hlog")) {
			t.Errorf("hlog %q: %v, want ok %v", name, err, ok)
		}
	}
}

// TestStartTimeLineKeepsMilliseconds: the StartTime line is Java's
// HistogramLogWriter's (TestHLogReadByJava compares with Java itself).
func TestStartTimeLineKeepsMilliseconds(t *testing.T) {
	got := artifacts.StartTimeLine(time.UnixMilli(1_796_110_015_018))
	if want := "#[StartTime: 1796110015.018 (seconds since epoch), Tue Dec 01 07:26:55 UTC 2026]\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestCeilRankRoundsUp: of 1..10, p94 is the 10th operation by Java's
// rule (ceil 9.4) and the 9th by the rounded one; p90 is the 9th by both.
func TestCeilRankRoundsUp(t *testing.T) {
	h := artifacts.NewHistogram()
	for v := int64(1); v <= 10; v++ {
		h.RecordValue(v)
	}
	for _, c := range []struct {
		q             float64
		ceil, rounded int64
	}{{94, 10, 9}, {90, 9, 9}, {0, 1, 1}, {100, 10, 10}, {5, 1, 1}} {
		if got, r := artifacts.ValueAtPercentileCeil(h, c.q), h.ValueAtQuantile(c.q); got != c.ceil || r != c.rounded {
			t.Errorf("p%v: ceil %d rounded %d, want %d and %d", c.q, got, r, c.ceil, c.rounded)
		}
	}
}
