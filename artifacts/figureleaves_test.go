package artifacts_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
)

// The figures added so that every figure an artifact records is
// checkable: a target's memory by each way it is read, its cgroup
// counters and sample count, a probe's mean, counts and tail slope, an
// extra timing's min, a runner's own figures, in-flight and samples.
func TestEveryRecordedFigureIsCheckable(t *testing.T) {
	tail := 2.5
	s := &artifacts.Step{
		Requests: 10,
		InFlight: &artifacts.InFlight{Max: 239, End: 12},
		Samples:  &artifacts.Samples{Of: artifacts.SamplesOfBlocks, Values: map[string][]float64{artifacts.SampleRPS: {1, 2, 3}}},
		Target: &artifacts.TargetStats{
			RSSMB: artifacts.Range{Start: 40, Peak: 90, End: 88}, RSSRising: true,
			WorkingSetMB: &artifacts.Range{Start: 30, Peak: 51, End: 50},
			PSSMB:        &artifacts.Range{Start: 20, Peak: 25, End: 24}, USSMB: &artifacts.Range{Start: 10, Peak: 12, End: 11},
			KernelPeakMB: 95, ThrottledPeriods: 7, ThrottledS: 0.25, OOMKills: 1, SpanS: 30,
			RSSFit: &artifacts.SlopeFit{N: 31},
		},
		ExtraMS: map[string]artifacts.Percentiles{"backoff": {Min: 500, Max: 2000}},
		Extra:   map[string]any{"time_to_exit_ms": 212.5, "exited_within_grace": true, "cycles": 100, "arm.cycles": int64(7), "exit_status": "exit 0"},
		Probes: map[string]artifacts.ProbeStats{
			"heap":  {Min: 1, Max: 5, Mean: 3, Last: 5, TailSlopePerMin: &tail, Samples: 9, Errors: 2},
			"dead":  {Errors: 4},
			"slow":  {Min: 0, Max: 0, Mean: 0, Last: 0, Samples: 1, Errors: 4},
			"plain": {Min: 1, Max: 1, Mean: 1, Last: 1, Samples: 3},
		},
	}
	for path, want := range map[string]float64{
		"in_flight.max": 239, "in_flight.end": 12, "samples": 3,
		"target.working_set_mb.peak": 51, "target.pss_mb.end": 24, "target.uss_mb.start": 10,
		"target.kernel_peak_mb": 95, "target.throttled_periods": 7, "target.throttled_s": 0.25, "target.oom_kills": 1,
		"target.samples": 31, "target.span_s": 30, "target.rss_rising": 1,
		"extra.backoff.min": 500, "extra.time_to_exit_ms": 212.5, "extra.exited_within_grace": 1, "extra.cycles": 100, "extra.arm.cycles": 7,
		"probes.heap.mean": 3, "probes.heap.samples": 9, "probes.heap.errors": 2, "probes.heap.tail_slope_per_min": 2.5,
		"probes.dead.errors": 4, "probes.dead.samples": 0,
	} {
		if got, err := figureOf(t, s, path); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", path, got, err, want)
		}
	}
	for path, want := range map[string]string{
		"extra.exit_status":                "not a number",
		"extra.nosuch":                     `extra has no "nosuch" in this step (has: arm.cycles, cycles, exit_status, exited_within_grace, time_to_exit_ms, backoff.X)`,
		"probes.plain.tail_slope_per_min":  "only the probe a soak policy watches has one",
		"probes.dead.mean":                 `probe "dead": no successful read in this step (4 failed)`,
		"probes.slow.max":                  `probe "slow": 4 of 5 reads failed in this step: its max stands on too few reads`,
		"self.working_set_mb.peak":         "no self figures",
		"targets.api.working_set_mb.start": `targets has no "api"`,
	} {
		if _, err := figureOf(t, s, path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	bare := &artifacts.Step{Target: &artifacts.TargetStats{}}
	for path, want := range map[string]string{
		"target.working_set_mb.peak": "only a cgroup target has a working set",
		"target.pss_mb.peak":         "tree: true",
		"target.samples":             "no slope fit kept",
		"in_flight.max":              "no in-flight figures",
	} {
		if _, err := figureOf(t, bare, path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s on a process target: %v, want %q", path, err, want)
		}
	}
}

// Every number TargetStats writes (its JSON fields, ranges by their
// start/peak/end) is a target figure, apart from the fits' standard
// errors and the fits themselves, which qualify the slopes.
func TestEveryTargetFieldHasAFigure(t *testing.T) {
	qualifiers := map[string]bool{"rss_slope_se_mb_per_min": true, "rss_slope_fit": true, "rss_tail_slope_se_mb_per_min": true,
		"rss_tail_window_s": true, "fds_slope_se_per_min": true, "fds_slope_fit": true, "cpu_cores_se": true}
	typ := reflect.TypeFor[artifacts.TargetStats]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if qualifiers[name] {
			continue
		}
		path := "target." + name
		if ft := typ.Field(i).Type; ft == reflect.TypeFor[artifacts.Range]() || ft == reflect.TypeFor[*artifacts.Range]() {
			path += ".peak"
		}
		if _, err := artifacts.ParseFigure(path); err != nil {
			t.Errorf("%s (TargetStats.%s) is no figure: %v", path, typ.Field(i).Name, err)
		}
	}
}
