package ui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// probeLines are the probe in progress: which revision, then its build
// or its run with the figures so far.
func (m *BisectModel) probeLines(w int) []string {
	if m.probing == noProbe {
		return []string{m.st.Dim.Render(fit("between probes…", w))}
	}
	c := m.commit(m.probing)
	where := "the good revision, the base of every verdict"
	if m.probing >= 0 {
		where = fmt.Sprintf("%d of %d after the good one", m.probing+1, len(m.rng.Commits))
	}
	head := m.st.Info.Render("▶ probe "+itoa(m.probe.N)) + " " + m.st.Bold.Render(clean(c.Hash)) + " " +
		clean(c.Subject) + m.st.Dim.Render(" · "+where)
	lines := []string{fit(head, w)}
	dir := filepath.Join(clean(m.rng.Dir), "bisect-"+clean(c.Hash))
	switch {
	case m.probe.Building:
		lines = append(lines, fit("  building its targets in a temporary worktree (output: "+filepath.Join(dir, "build.log")+")", w))
	case m.live == nil:
		lines = append(lines, fit(fmt.Sprintf("  starting its targets for %d runs", m.probe.Runs), w))
	default:
		lines = append(lines, m.liveLines(w)...)
	}
	return lines
}

// liveLines are the running probe's step, phase and clock, then its
// figures so far.
func (m *BisectModel) liveLines(w int) []string {
	s := m.live
	if s.Err != nil {
		return []string{m.st.Error.Render(fit("  failed: "+clean(s.Err.Error()), w))}
	}
	clock := dur(s.Elapsed)
	if s.Planned > 0 {
		clock += "/" + dur(s.Planned)
	}
	step := fmt.Sprintf("  step %d/%d %s · %s %s", s.Step, s.Steps, clean(s.StepLabel), s.Phase, clock)
	t := s.Total
	figures := fmt.Sprintf("  %s rps · p50 %s ms · p99 %s ms · %s errors", compact(t.RPS), compact(t.P50), compact(t.P99), count(t.Errors))
	return []string{fit(step, w), fit(figures, w)}
}

// endLines are how the bisection ended: the first worse revision with its
// verdict table, the candidates skipped revisions leave, none found, or
// why it stopped.
func (m *BisectModel) endLines(w int) []string {
	e := m.end
	probes := fmt.Sprintf("%d probes%s · artifacts in %s", e.Probes, m.skippedCount(), clean(m.rng.Dir))
	if e.Err != "" {
		return []string{m.st.Error.Render(fit("stopped: "+clean(e.Err), w)), m.st.Dim.Render(fit(probes, w))}
	}
	good := m.rng.Good
	against := m.st.Dim.Render(fit(fmt.Sprintf("judged on %s of group %s against the good %s %s", clean(m.rng.Figure),
		clean(m.rng.Group), clean(good.Hash), clean(good.Subject)), w))
	if e.First < 0 {
		return []string{m.st.Better.Render(fit("✓ no revision judged worse", w)), against, m.st.Dim.Render(fit(probes, w))}
	}
	var head string
	if e.Candidates != nil {
		var hashes []string
		for _, i := range e.Candidates {
			hashes = append(hashes, clean(m.commit(i).Hash))
		}
		head = m.st.Worse.Render("✗ the first worse is one of ") + strings.Join(hashes, ", ") + m.st.Dim.Render(" (skipped revisions hide it)")
	} else {
		c := m.commit(e.First)
		head = m.st.Worse.Render("✗ first worse: ") + m.st.Bold.Render(clean(c.Hash)) + " " + clean(c.Subject)
	}
	lines := []string{fit(head, w), against, m.st.Dim.Render(fit(probes, w))}
	if e.Cmp != nil {
		lines = append(lines, m.st.compareAll(*e.Cmp, w)...)
	}
	return lines
}

// skippedCount is ", N skipped" for the probes skipped, "" when none was.
func (m *BisectModel) skippedCount() string {
	n := 0
	for _, j := range m.judged {
		if j.Outcome == BisectSkipped {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d skipped", n)
}

// bisectGlossary says what the keys and marks of the bisection's view
// mean.
var bisectGlossary = [][2]string{
	{"q", "quit; while bisecting it asks first, then stops the probe and removes its worktree"},
	{"ctrl+c", "stop the bisection and quit at once"},
	{"?", "this help"},
	{"✓", "judged good: not worse than the good revision; the first worse is after it"},
	{"✗", "judged worse: the first worse is it or before it"},
	{"~skip", "did not build or run: not judged, its neighbour probed instead"},
	{"▶", "being probed: built in a temporary worktree, then run"},
	{"good bad", "the search's bounds: the first worse is after good, at bad or before it"},
	{"dim", "ruled out by the search"},
}

// bisectHelp lists the keys and marks, then where the output goes.
func (m *BisectModel) bisectHelp(w int) []string {
	lines := []string{m.st.Title.Render("Keys and marks") + m.st.Dim.Render(" — any key goes back")}
	for _, g := range bisectGlossary {
		for i, l := range strings.Split(ansi.Wordwrap(g[1], w-12, ""), "\n") {
			lead := strings.Repeat(" ", 12)
			if i == 0 {
				lead = "  " + m.st.Key.Render(padRight(g[0], 9)) + " "
			}
			lines = append(lines, fit(lead+l, w))
		}
	}
	lines = append(lines, "")
	for _, l := range strings.Split(ansi.Wordwrap(bisectOutputNote, w, ""), "\n") {
		lines = append(lines, m.st.Dim.Render(fit(l, w)))
	}
	return lines
}

// bisectOutputNote says where the output goes, at the foot of the help.
const bisectOutputNote = "Once the view closes, stdout gets the result as without --console. " +
	"The progress lines go to benchtui.log in the artifacts folder."
