package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
)

// JUnit XML, as CI systems read it (the Jenkins and Ant layout):
// testsuites, a testsuite per group, a testcase per check.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Errors    int         `xml:"errors,attr"`
		Skipped   int         `xml:"skipped,attr"`
		Time      string      `xml:"time,attr"`
		Timestamp string      `xml:"timestamp,attr,omitempty"`
		Cases     []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// Test case names of --junit beside the checks.
const (
	junitRunCase      = "run"
	junitBaselineCase = "no regression against the baseline"
)

// junitOutput is run --junit: per group a testsuite whose testcases are
// the run itself (an error when the group could not run, failed or was
// stopped; with --fail-on-leak, a failure when a target's RSS was still
// rising), every check of every step (a failure with the check's line and
// measured value when it failed) and, with --baseline, each step's
// judgement (a failure listing the figures judged worse).
type junitOutput struct {
	w *bytes.Buffer
	// failOnLeak is run's --fail-on-leak.
	failOnLeak bool
	groups     []groupResult
}

func (o *junitOutput) group(r groupResult) { o.groups = append(o.groups, r) }

func (o *junitOutput) end(cmp *compare.Comparison, _ int, _ bool) error {
	doc := junitSuites{Name: "benchtui run"}
	total := 0.0
	for _, r := range o.groups {
		s, secs := junitGroup(r, cmp, o.failOnLeak)
		doc.Suites = append(doc.Suites, s)
		doc.Tests, doc.Failures, doc.Errors = doc.Tests+s.Tests, doc.Failures+s.Failures, doc.Errors+s.Errors
		total += secs
	}
	doc.Time = junitSeconds(total)
	o.w.WriteString(xml.Header)
	enc := xml.NewEncoder(o.w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	o.w.WriteString("\n")
	return nil
}

// junitGroup is one group's testsuite and the seconds its steps took; a
// leak fails its run case when failOnLeak.
func junitGroup(r groupResult, cmp *compare.Comparison, failOnLeak bool) (junitSuite, float64) {
	s := junitSuite{Name: r.id}
	run := junitCase{Name: junitRunCase, Classname: r.id, Time: "0"}
	secs := 0.0
	if a := r.artifact; a != nil {
		s.Timestamp = a.Run.Started.UTC().Format("2006-01-02T15:04:05")
		for i := range a.Steps {
			st := &a.Steps[i]
			secs += st.DurationS
			for _, c := range st.Checks {
				s.Cases = append(s.Cases, junitCheck(r.id, st.Label, c))
			}
			if cmp != nil {
				s.Cases = append(s.Cases, junitBaseline(r.id, st.Label, stepVerdicts(cmp, r.id, st.Label)))
			}
		}
		run.Time = junitSeconds(secs)
	}
	if why := junitRunError(r); why != "" {
		run.Error = &junitProblem{Message: why, Type: "run", Text: why}
	} else if failOnLeak && leaking(r.artifact) {
		why := leakLine(r.artifact)
		run.Failure = &junitProblem{Message: why, Type: "leak", Text: why}
	}
	s.Cases = append([]junitCase{run}, s.Cases...)
	s.Time = junitSeconds(secs)
	for _, c := range s.Cases {
		s.Tests++
		if c.Failure != nil {
			s.Failures++
		}
		if c.Error != nil {
			s.Errors++
		}
	}
	return s, secs
}

// junitRunError is why a group's run is an error: it could not start, it
// ended in an error, or it was stopped before its end (its figures
// partial); "" when it ran to its end.
func junitRunError(r groupResult) string {
	switch {
	case r.artifact == nil:
		return "did not run: " + r.err
	case r.err != "":
		return r.err
	case r.artifact.Run.Partial:
		why := "stopped before its end: the figures are partial"
		if e := artifacts.Outcome(r.artifact); e.StoppedWhy != "" {
			why += " (" + e.StoppedWhy + ")"
		}
		return why
	}
	return ""
}

// leakLine says why a's run leaks: its soak verdicts that found a leak
// and its targets whose RSS was still rising.
func leakLine(a *artifacts.Artifact) string {
	e := artifacts.Outcome(a)
	var why []string
	for _, v := range e.Soaks {
		if v.Leak {
			why = append(why, v.String())
		}
	}
	return "leak: " + strings.Join(append(why, risingLines(e, len(a.Steps) > 1)...), "; ")
}

// junitCaseName is a case's name: the step's label first when it has one.
func junitCaseName(step, name string) string {
	if step == "" {
		return name
	}
	return step + ": " + name
}

// junitCheck is one check as a testcase: its measured value (and limits)
// as output, and a failure with the check's line when it failed.
func junitCheck(group, step string, c artifacts.Check) junitCase {
	tc := junitCase{Name: junitCaseName(step, c.Name), Classname: group, Time: "0",
		SystemOut: c.Name + ": " + artifacts.ValueAndLimits(c)}
	if !c.OK {
		line := artifacts.FailedLine(c)
		tc.Failure = &junitProblem{Message: line, Type: "check",
			Text: line + "\nmeasured: " + artifacts.CheckValue(c)}
	}
	return tc
}

// junitBaseline is a step's judgement against the baseline as a testcase:
// a failure listing the figures judged worse.
func junitBaseline(group, step string, rows []compare.Row) junitCase {
	tc := junitCase{Name: junitCaseName(step, junitBaselineCase), Classname: group, Time: "0"}
	var worse []string
	for _, r := range rows {
		if r.Verdict == compare.Worse {
			w := fmt.Sprintf("%s %.4g → %.4g", r.Metric, r.Base, r.Current)
			if !math.IsNaN(r.P) {
				w += fmt.Sprintf(" (p=%.3f)", r.P)
			}
			worse = append(worse, w)
		}
	}
	tc.SystemOut = fmt.Sprintf("%d figures judged, %d worse", len(rows), len(worse))
	if len(worse) > 0 {
		msg := "worse than the baseline: " + strings.Join(worse, ", ")
		tc.Failure = &junitProblem{Message: msg, Type: "regression", Text: msg}
	}
	return tc
}

// junitSeconds formats seconds as JUnit's time attribute.
func junitSeconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }
