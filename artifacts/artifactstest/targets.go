package artifactstest

import "github.com/benchtui/benchtui/artifacts"

// TargetsStep is a 600 s soak step that watched two targets: api, whose
// RSS rises at apiSlope MB/min, and db, flat; TargetsSum adds them up and
// Target is api's (the first target's).
func TargetsStep(apiSlope float64) artifacts.Step {
	api := &artifacts.TargetStats{RSSMB: artifacts.Range{Start: 10, Peak: 40, End: 38}, RSSSlopeMBPerMin: apiSlope, RSSSlopeSE: 0.1,
		FDs: artifacts.Range{Start: 10, Peak: 12, End: 11}, CPUCores: 0.5, CPUCoresPeak: 0.9, SpanS: 600}
	db := &artifacts.TargetStats{RSSMB: artifacts.Range{Start: 100, Peak: 101, End: 100}, RSSSlopeSE: 0.1,
		FDs: artifacts.Range{Start: 30, Peak: 30, End: 30}, CPUCores: 0.2, CPUCoresPeak: 0.3, SpanS: 600}
	sum := &artifacts.TargetStats{RSSMB: artifacts.Range{Start: 110, Peak: 140, End: 138}, RSSSlopeMBPerMin: apiSlope, RSSSlopeSE: 0.14,
		FDs: artifacts.Range{Start: 40, Peak: 42, End: 41}, CPUCores: 0.7, CPUCoresPeak: 1.1, SpanS: 600}
	return artifacts.Step{Label: "soak", Target: api, Targets: map[string]*artifacts.TargetStats{"api": api, "db": db}, TargetsSum: sum}
}
