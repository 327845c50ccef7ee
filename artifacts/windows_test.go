package artifacts_test

import (
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
)

// A window's figures read as a named request's: counts, error_rate, and
// percentiles from its histogram; a window whose action never ran, or
// one the step lacks, is an error, never a zero.
func TestWindowFigures(t *testing.T) {
	h := artifacts.NewHistogram()
	for v := int64(1); v <= 100; v++ {
		_ = h.RecordValue(v * 1000) // 1 … 100 ms
	}
	enc, err := artifacts.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	s := &artifacts.Step{Requests: 1000, Windows: map[string]artifacts.WindowStep{
		"rotation": {During: "rotate", FromS: 2, ToS: 2.113, Runs: 1, Requests: 100, Errors: 4, Histogram: enc},
		"idle":     {After: "kill"},
	}}
	for path, want := range map[string]float64{
		"windows.rotation.requests": 100, "windows.rotation.errors": 4, "windows.rotation.error_rate": 0.04,
		"windows.rotation.p99": float64(h.ValueAtQuantile(99)) / 1000, "windows.rotation.max": float64(h.Max()) / 1000,
	} {
		if got, err := figureOf(t, s, path); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", path, got, err, want)
		}
	}
	for path, want := range map[string]string{
		"windows.idle.p99":    `window "idle" never opened in this step: its action kill never ran`,
		"windows.rotaton.p99": `windows has no "rotaton" in this step (nearest: rotation;`,
	} {
		if _, err := figureOf(t, s, path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if _, err := artifacts.ParseFigure("windows.rotation.dropped"); err == nil || !strings.Contains(err.Error(), "windows.NAME.X, X: pNN, max, mean, min, requests, errors, error_rate") {
		t.Errorf("windows.rotation.dropped: %v", err)
	}
}
