package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
	artreport "github.com/benchtui/benchtui/artifacts/report"
)

// The values of run --format.
const (
	formatText = "text"
	formatJSON = "json"
	formatCSV  = "csv"
)

// groupResult is what one group of a headless run gave.
type groupResult struct {
	id string
	// artifact is nil when the group's session could not start.
	artifact *artifacts.Artifact
	// path is where the artifact was written; "" when it could not be.
	path string
	// err is what ended the session (redacted), if anything did.
	err string
}

// runOutput writes what a headless run measured on stdout, in one of the
// formats of run --format. Progress, artifact paths and errors go to
// stderr whatever the format, so that stdout holds only the output.
type runOutput interface {
	// group is called as each group ends.
	group(r groupResult)
	// end is called once when the run ends (not on a second interrupt,
	// which exits at once): cmp is the judgement against the baseline,
	// nil without one or when interrupted.
	end(cmp *compare.Comparison, code int, interrupted bool) error
}

// newRunOutput returns the output of format (one of runFormats).
func newRunOutput(format string, stdout io.Writer) runOutput {
	switch format {
	case formatJSON:
		return &jsonOutput{w: stdout}
	case formatCSV:
		return &csvOutput{w: stdout}
	}
	return textOutput{w: stdout}
}

// textOutput prints a table per group as it ends and the comparison
// table at the end: the output meant for a person.
type textOutput struct{ w io.Writer }

func (o textOutput) group(r groupResult) {
	if r.artifact != nil {
		printSummary(o.w, r.artifact, filepath.Dir(r.path))
	}
}

func (o textOutput) end(cmp *compare.Comparison, _ int, _ bool) error {
	if cmp == nil {
		return nil
	}
	fmt.Fprintln(o.w)
	return artreport.Render(o.w, *cmp, artreport.FormatText)
}

// runStatus is the word for how a run ended: pass (exit 0), fail (exit
// 1) or interrupted (a signal stopped it).
func runStatus(code int, interrupted bool) string {
	switch {
	case interrupted:
		return "interrupted"
	case code == exitOK:
		return "pass"
	}
	return "fail"
}

// stepVerdicts are the comparison rows of one step of a group; nil
// without a comparison.
func stepVerdicts(cmp *compare.Comparison, group, step string) []compare.Row {
	if cmp == nil {
		return nil
	}
	var rows []compare.Row
	for _, r := range cmp.Rows {
		if r.Group == group && r.Step == step {
			rows = append(rows, r)
		}
	}
	return rows
}
