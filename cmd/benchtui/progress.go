package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/watch"
)

// progress prints at most one line a second about a running group, and
// a line at once when the soak policy extends a step.
type progress struct {
	w     io.Writer
	group string
	last  time.Time
	// autoStep and autoSeen are the step and how many of its soak
	// extensions have been told.
	autoStep, autoSeen int
}

func newProgress(w io.Writer, group string) *progress { return &progress{w: w, group: group} }

func (p *progress) show(s engine.Snapshot) {
	if s.Err != nil {
		fmt.Fprintf(p.w, "%s: failed: %v\n", p.group, s.Err)
		return
	}
	p.tellSoak(s)
	if time.Since(p.last) < time.Second && s.Phase != engine.PhaseDone {
		return
	}
	p.last = time.Now()
	state := string(s.Phase)
	if s.State == engine.StatePaused {
		state = "paused"
	}
	clock := s.Elapsed.Round(time.Second).String()
	switch {
	case s.Count > 0:
		clock += fmt.Sprintf(" ops %d/%d", s.Total.Requests, s.Count) // Planned is only the cap
	case s.Planned > 0:
		clock += "/" + s.Planned.Round(time.Second).String()
	}
	line := fmt.Sprintf("%s step %d/%d %s %s %s rps %.0f p50 %.2fms p99 %.2fms errors %d",
		p.group, s.Step, s.Steps, s.StepLabel, state, clock, s.Total.RPS, s.Total.P50, s.Total.P99, s.Total.Errors)
	if s.Total.Dropped > 0 {
		line += fmt.Sprintf(" dropped %d", s.Total.Dropped)
	}
	if s.Target != nil {
		line += fmt.Sprintf(" | %s rss %.1fMB fds %d", s.TargetName, s.Target.RSSMB, s.Target.FDs)
	}
	line += othersProgress(s)
	fmt.Fprintln(p.w, line)
}

// tellSoak prints a line as soon as the soak policy extends the step
// (the once-a-second line would not say it): how many times so far, what
// they added, and why, in the engine's words ("+10s RSS rising 24.80
// MB/min > 1 MB/min").
func (p *progress) tellSoak(s engine.Snapshot) {
	if s.Step != p.autoStep {
		p.autoStep, p.autoSeen = s.Step, 0
	}
	n, added := artifacts.AutoExtensions(s.Events)
	if n <= p.autoSeen {
		return
	}
	p.autoSeen = n
	fmt.Fprintf(p.w, "%s step %d/%d %s: soak auto-extended the step (%d so far, +%s in all): %s\n",
		p.group, s.Step, s.Steps, s.StepLabel, n, added, lastAutoNote(s.Events))
}

// lastAutoNote is the note of the soak policy's latest extension.
func lastAutoNote(events []artifacts.Event) string {
	for i := len(events) - 1; i >= 0; i-- {
		if n, _ := artifacts.AutoExtensions(events[i : i+1]); n == 1 {
			return events[i].Note
		}
	}
	return ""
}

// printSummary writes a table of a group's steps and its checks; dir is
// the artifacts folder, where the files a step saved are.
func printSummary(w io.Writer, a *artifacts.Artifact, dir string) {
	fmt.Fprintf(w, "\n%s — %s (%s)%s\n", a.Group.ID, a.Group.Title, a.Group.Runner, map[bool]string{true: " [partial]"}[a.Run.Partial])
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\trequests\trps\tp50 ms\tp90 ms\tp99 ms\tmax ms\terrors\tdropped\t")
	for _, s := range a.Steps {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t%d\t\n", s.Label, s.Requests, s.ThroughputRPS,
			s.LatencyMS.P50, s.LatencyMS.P90, s.LatencyMS.P99, s.LatencyMS.Max, s.Errors, s.Dropped)
	}
	tw.Flush()
	for _, s := range a.Steps {
		printStepDetails(w, s)
	}
	printEnding(w, a, dir)
}

// printEnding says how the run ended, in the words of the console and the
// reports (artifacts.Outcome), with each soak's verdict under it and, for
// a leak, the command that diffs the step's heap profiles; the failed
// checks are listed above with their values.
func printEnding(w io.Writer, a *artifacts.Artifact, dir string) {
	e := artifacts.Outcome(a)
	fmt.Fprintf(w, "%s ended: %s\n", a.Group.ID, e)
	for _, v := range e.Soaks {
		mark := "✓"
		if v.Leak {
			mark = "⚠"
		}
		fmt.Fprintf(w, "  %s soak %s %s\n", v.Step, mark, v)
		if s := a.StepLabeled(v.Step); v.Leak && s != nil {
			if start, end, ok := s.HeapProfiles(); ok {
				fmt.Fprintf(w, "    heap growth: go tool pprof -diff_base %s %s\n", filepath.Join(dir, start), filepath.Join(dir, end))
			}
		}
	}
	for _, r := range e.Rising {
		fmt.Fprintf(w, "  %s ⚠ %s\n", r.Step, r)
	}
}

func printStepDetails(w io.Writer, s artifacts.Step) {
	printPairs(w, s.Label, "errors", s.ErrorKinds)
	printPairs(w, s.Label, "counters", s.Counters)
	printPairs(w, s.Label, "figures", s.Extra)
	for name, p := range s.ExtraMS {
		fmt.Fprintf(w, "  %s %s: p50 %.2fms p99 %.2fms max %.2fms\n", s.Label, name, p.P50, p.P99, p.Max)
	}
	if t := s.Target; t != nil {
		fmt.Fprintf(w, "  %s target: rss %.1f→%.1f MB (peak %.1f), %s, %s, fds %.0f→%.0f, cpu %.2f cores\n",
			s.Label, t.RSSMB.Start, t.RSSMB.End, t.RSSMB.Peak, artifacts.SlopeText(t.RSSSlopeMBPerMin, t.RSSSlopeSE, t.SpanS),
			artifacts.TailSlopeText(t.RSSTailSlopeMBMin, t.TailWindowS), t.FDs.Start, t.FDs.End, t.CPUCores)
	}
	printTargets(w, s)
	for _, name := range slices.Sorted(maps.Keys(s.Windows)) {
		v := s.Windows[name]
		fmt.Fprintf(w, "  %s window %s: %.3f–%.3fs, %d runs, %d requests, %d errors, p50 %.2fms p99 %.2fms max %.2fms\n",
			s.Label, name, v.FromS, v.ToS, v.Runs, v.Requests, v.Errors, v.LatencyMS.P50, v.LatencyMS.P99, v.LatencyMS.Max)
	}
	for _, e := range s.Events {
		fmt.Fprintf(w, "  %s event at %.1fs: %s %s\n", s.Label, e.T, e.Kind, e.Note)
	}
	for _, c := range s.Checks {
		if c.OK {
			fmt.Fprintf(w, "  %s check ok   %s: %s\n", s.Label, c.Name, artifacts.ValueAndLimits(c))
		} else {
			fmt.Fprintf(w, "  %s check FAIL %s\n", s.Label, artifacts.FailedLine(c))
		}
	}
}

// printPairs prints a map as one sorted "k=v" line, if it has any entry.
func printPairs[V any](w io.Writer, label, what string, m map[string]V) {
	if len(m) == 0 {
		return
	}
	pairs := make([]string, 0, len(m))
	for k, v := range m {
		pairs = append(pairs, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(pairs)
	fmt.Fprintf(w, "  %s %s: %s\n", label, what, strings.Join(pairs, " "))
}

// raiseFDLimit lifts the soft fd limit to the hard one, saying so.
func raiseFDLimit(w io.Writer) {
	soft, hard, raised, err := watch.RaiseFDLimit()
	switch {
	case errors.Is(err, watch.ErrUnsupported):
		// no fd limit to raise on this system (windows)
	case err != nil:
		fmt.Fprintln(w, "benchtui: raising the fd limit:", err)
	case raised:
		fmt.Fprintf(w, "benchtui: raised the open-files limit from %d to %d\n", soft, hard)
	}
}
