package ui

import (
	"fmt"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"github.com/benchtui/benchtui/artifacts"
	artcompare "github.com/benchtui/benchtui/artifacts/compare"
)

// slowerView is what the `w` view shows of a group: the profiles saved
// beside its baseline and its latest result, compared step by step
// (artcompare.DiffProfiles), read in a Cmd when the view opens.
type slowerView struct {
	base, cur *artifacts.Artifact // as compared
	diffs     []artcompare.ProfileDiff
	busy      bool
	// same: the latest result is the baseline itself (a console just
	// opened), so there is no CPU to compare.
	same bool
}

// slowerMsg carries the comparison of a group's profiles.
type slowerMsg struct {
	group     int
	base, cur *artifacts.Artifact
	diffs     []artcompare.ProfileDiff
}

// openSlower opens the "what got slower" view of the selected group and
// reads the profiles of its baseline and latest result in a Cmd. A
// result this console exported has its profiles in the artifacts
// folder, a baseline beside its file.
func (m *Model) openSlower() tea.Cmd {
	m.mode, m.scroll = modeSlower, 0
	gr := m.selected()
	gr.slower = nil
	if gr.last == nil {
		return nil
	}
	cur := withDir(gr.last, m.cfg.Dir)
	var base *artifacts.Artifact
	same := gr.base != nil && gr.base.Run.ID == gr.last.Run.ID && gr.base.Run.Started.Equal(gr.last.Run.Started)
	if gr.base != nil && !same {
		base = withDir(gr.base, filepath.Dir(gr.basePath))
	}
	gr.slower = &slowerView{base: base, cur: cur, busy: true, same: same}
	i := m.sel
	return func() tea.Msg {
		return slowerMsg{group: i, base: base, cur: cur, diffs: artcompare.DiffProfiles(base, cur)}
	}
}

// withDir is a shallow copy of a whose Dir is dir unless it has one: the
// Cmd reads it while the model goes on.
func withDir(a *artifacts.Artifact, dir string) *artifacts.Artifact {
	c := *a
	if c.Dir == "" {
		c.Dir = dir
	}
	return &c
}

// onSlower keeps a comparison of profiles unless the view was opened
// again since.
func (m *Model) onSlower(msg slowerMsg) {
	if v := m.groups[msg.group].slower; v != nil && v.cur == msg.cur {
		v.diffs, v.busy = msg.diffs, false
	}
}

// viewSlower is the full-screen "what got slower" of the selected group:
// per step, the functions whose share of CPU grew most from the
// baseline's profile to the latest result's, and, where RSS rose, the
// allocation sites whose bytes in use grew most.
func (m *Model) viewSlower(w, h int) []string {
	gr, st := m.selected(), m.st
	lines := []string{st.Title.Render("What got slower in "+gr.g.ID) + st.Dim.Render(" — esc goes back, ↑/↓ scroll")}
	v := gr.slower
	switch {
	case v == nil:
		lines = append(lines, st.Dim.Render(fit("no result of "+gr.g.ID+" yet (enter runs it)", w)))
	case v.busy:
		lines = append(lines, st.Dim.Render("reading the profiles…"))
	case v.same && len(v.diffs) == 0:
		lines = append(lines, st.Dim.Render(fit(slowerSides(v), w)))
	default:
		lines = append(lines, st.Dim.Render(fit(slowerSides(v), w)))
		lines = append(lines, m.slowerLines(v.diffs, w)...)
	}
	m.scroll = min(m.scroll, max(len(lines)-h, 0))
	return lines[m.scroll:]
}

// slowerSides names the two runs compared.
func slowerSides(v *slowerView) string {
	cur := artifacts.FileName(v.cur.Group.ID, v.cur.Run.Started)
	if v.same {
		return "the latest result is the baseline (" + cur + "): run the group (enter) or pick an older baseline (b)"
	}
	if v.base == nil {
		return "no baseline to compare CPU with (b picks one) · current " + cur
	}
	return "baseline " + artifacts.FileName(v.base.Group.ID, v.base.Run.Started) + " · current " + cur
}

// slowerLines lay out each step's comparison of profiles.
func (m *Model) slowerLines(diffs []artcompare.ProfileDiff, w int) []string {
	st := m.st
	if len(diffs) == 0 {
		return []string{"", st.Dim.Render(fit("no profiles to compare: the target's pprof: {url: …/heap, cpu: true} saves them", w))}
	}
	var lines []string
	for _, d := range diffs {
		lines = append(lines, "", st.Bold.Render("step "+stepName(d.Step)))
		lines = append(lines, m.cpuLines(d, w)...)
		if len(d.Grew) > 0 {
			lines = append(lines, st.Header.Render(fit(fmt.Sprintf("%s%10s%10s%10s", fit("allocation site (heap in use)", fnWidth(w)), "start MB", "end MB", "grew MB"), w)))
			for _, g := range d.Grew {
				lines = append(lines, fit(fmt.Sprintf("%-*s%10.2f%10.2f", fnWidth(w), fit(artifacts.ShortFunction(g.Function), fnWidth(w)-1),
					float64(g.Start)/1e6, float64(g.End)/1e6)+st.Worse.Render(fmt.Sprintf("%+10.2f", float64(g.Grew())/1e6)), w))
			}
		}
		for _, p := range d.Problems {
			lines = append(lines, st.Dim.Render(fit("note: "+p, w)))
		}
	}
	return lines
}

// cpuLines are a step's functions whose share of CPU grew.
func (m *Model) cpuLines(d artcompare.ProfileDiff, w int) []string {
	st := m.st
	if !d.CPU {
		return []string{st.Dim.Render(fit("no CPU profile on both sides (pprof: {cpu: true})", w))}
	}
	if len(d.Slower) == 0 {
		return []string{st.Dim.Render(fit("no function's share of CPU grew", w))}
	}
	fw := fnWidth(w)
	lines := []string{st.Header.Render(fit(fmt.Sprintf("%s%10s%10s%10s%10s", fit("function (CPU share)", fw), "base %", "current %", "Δ pts", "cum %"), w))}
	for _, f := range d.Slower {
		lines = append(lines, fit(fmt.Sprintf("%-*s%10.1f%10.1f", fw, fit(artifacts.ShortFunction(f.Function), fw-1), 100*f.BaseFlat, 100*f.CurrentFlat)+
			st.Worse.Render(fmt.Sprintf("%+10.1f", 100*f.Growth()))+fmt.Sprintf("%10.1f", 100*f.CurrentCum), w))
	}
	return lines
}

// fnWidth is the width of the function's column: what the four figures
// (40 columns) leave, 12 to 48.
func fnWidth(w int) int { return min(max(w-40, 12), 48) }
