package main

import (
	"io"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
	artreport "github.com/benchtui/benchtui/artifacts/report"
)

// runSummarySchema names the document run --format json writes, described
// by docs/run-summary.schema.json.
const runSummarySchema = "benchtui.run-summary/v1"

// runSummary is the document run --format json writes on stdout.
type runSummary struct {
	Schema   string         `json:"schema"`
	Status   string         `json:"status"`
	ExitCode int            `json:"exit_code"`
	Groups   []groupSummary `json:"groups"`
	// Baseline is the judgement against --baseline; null without one.
	Baseline *baselineSummary `json:"baseline"`
}

// groupSummary is one group of a run summary.
type groupSummary struct {
	ID       string         `json:"id"`
	Title    string         `json:"title"`
	Runner   string         `json:"runner"`
	Artifact string         `json:"artifact"`
	RunID    string         `json:"run_id"`
	Started  *time.Time     `json:"started"`
	Partial  bool           `json:"partial"`
	Ending   *endingSummary `json:"ending"`
	Error    string         `json:"error,omitempty"`
	Steps    []stepSummary  `json:"steps"`
}

// endingSummary is artifacts.Outcome in JSON.
type endingSummary struct {
	Pass         bool     `json:"pass"`
	Tags         []string `json:"tags"`
	FailedChecks int      `json:"failed_checks"`
	Leak         bool     `json:"leak"`
	// RSSRising lists the targets whose RSS was still rising, in words
	// ("api RSS still rising: slope +129.2 ± 6.1 MB/min (whole run, 59
	// s)", the step first when the group has several); empty when none.
	RSSRising  []string `json:"rss_rising"`
	Stopped    bool     `json:"stopped"`
	StoppedWhy string   `json:"stopped_why,omitempty"`
}

// stepSummary is one step of a group: its figures, checks and verdicts.
type stepSummary struct {
	Label         string                `json:"label"`
	Params        map[string]float64    `json:"params"`
	DurationS     float64               `json:"duration_s"`
	Requests      int64                 `json:"requests"`
	Errors        int64                 `json:"errors"`
	Dropped       int64                 `json:"dropped"`
	ThroughputRPS float64               `json:"throughput_rps"`
	OKRPS         float64               `json:"ok_rps"`
	LatencyMS     artifacts.Percentiles `json:"latency_ms"`
	Checks        []artifacts.Check     `json:"checks"`
	Verdicts      []artreport.JSONRow   `json:"verdicts"`
}

// baselineSummary is what the comparison with the baseline found beyond
// the per-step verdicts.
type baselineSummary struct {
	Worse    bool                `json:"worse"`
	Geomean  []artreport.JSONRow `json:"geomean"`
	Warnings []string            `json:"warnings"`
}

// jsonOutput collects the groups and writes one runSummary at the end.
type jsonOutput struct {
	w      io.Writer
	groups []groupResult
}

func (o *jsonOutput) group(r groupResult) { o.groups = append(o.groups, r) }

func (o *jsonOutput) end(cmp *compare.Comparison, code int, interrupted bool) error {
	doc := runSummary{Schema: runSummarySchema, Status: runStatus(code, interrupted), ExitCode: code,
		Groups: make([]groupSummary, 0, len(o.groups))}
	for _, r := range o.groups {
		doc.Groups = append(doc.Groups, summarizeGroup(r, cmp))
	}
	if cmp != nil {
		doc.Baseline = &baselineSummary{Worse: cmp.Worse(), Geomean: artreport.JSONRows(cmp.Geomean), Warnings: cmp.Warnings}
		if doc.Baseline.Warnings == nil {
			doc.Baseline.Warnings = []string{}
		}
	}
	return artifacts.EncodeJSON(o.w, doc)
}

func summarizeGroup(r groupResult, cmp *compare.Comparison) groupSummary {
	g := groupSummary{ID: r.id, Artifact: r.path, Error: r.err, Steps: []stepSummary{}}
	a := r.artifact
	if a == nil {
		return g
	}
	g.Title, g.Runner, g.RunID, g.Partial = a.Group.Title, a.Group.Runner, a.Run.ID, a.Run.Partial
	started := a.Run.Started
	g.Started = &started
	e := artifacts.Outcome(a)
	g.Ending = &endingSummary{Pass: e.Pass(), Tags: e.Tags(), FailedChecks: len(e.Failed),
		Leak: e.Leak(), RSSRising: risingLines(e, len(a.Steps) > 1), Stopped: e.Stopped, StoppedWhy: e.StoppedWhy}
	for _, s := range a.Steps {
		checks, params := s.Checks, s.Params
		if checks == nil {
			checks = []artifacts.Check{}
		}
		if params == nil {
			params = map[string]float64{}
		}
		g.Steps = append(g.Steps, stepSummary{Label: s.Label, Params: params, DurationS: s.DurationS,
			Requests: s.Requests, Errors: s.Errors, Dropped: s.Dropped, ThroughputRPS: s.ThroughputRPS,
			OKRPS: s.OKRPS, LatencyMS: s.LatencyMS, Checks: checks,
			Verdicts: artreport.JSONRows(stepVerdicts(cmp, a.Group.ID, s.Label))})
	}
	return g
}

// risingLines are the ending's rising targets in words, each with its step
// when multi.
func risingLines(e artifacts.Ending, multi bool) []string {
	out := []string{}
	for _, r := range e.Rising {
		line := r.String()
		if multi {
			line = r.Step + ": " + line
		}
		out = append(out, line)
	}
	return out
}
