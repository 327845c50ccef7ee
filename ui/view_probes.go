package ui

import (
	"fmt"
	"strings"

	"github.com/benchtui/benchtui/runners/probe"
)

// sparkRunes are the eight heights of a one-line sparkline.
var sparkRunes = []rune("▁▂▃▄▅▆▇█")

// probeRows are the group's probes, one line each: the name, a sparkline
// of the step's reads, and last/min/max (and errors, if any). At most
// room lines; none before the first snapshot or without probes.
func (m *Model) probeRows(gr *group, w, room int) []string {
	if !gr.seen || room <= 0 {
		return nil
	}
	probes := gr.snap.Probes
	if len(probes) > room {
		probes = probes[:room]
	}
	nameW := 0
	for _, p := range probes {
		nameW = max(nameW, min(len1(p.Name), 16))
	}
	out := make([]string, 0, len(probes))
	for _, p := range probes {
		figures := probeFigures(p)
		sparkW := max(w-nameW-len1(figures)-3, 0)
		if sparkW < 8 { // too narrow for a line worth reading: figures only
			sparkW = 0
		}
		line := fit(p.Name, nameW) + " " + m.st.Dim.Render(sparkline(p.Values, sparkW)) + " " + figures
		out = append(out, fit(line, w))
	}
	return out
}

// probeFigures is a probe's "last 12 · min 3 · max 40", with its errors.
func probeFigures(p probe.Live) string {
	s := p.Stats
	text := "no reads yet"
	if s.Samples > 0 {
		text = fmt.Sprintf("last %s · min %s · max %s", compact(s.Last), compact(s.Min), compact(s.Max))
	}
	if s.Errors > 0 {
		text += fmt.Sprintf(" · %d err", s.Errors)
	}
	return text
}

// sparkline draws xs in w cells (each the maximum of its share of the
// reads), scaled from their least to their greatest value.
func sparkline(xs []float64, w int) string {
	if w <= 0 {
		return ""
	}
	xs = resample(xs, w)
	if len(xs) == 0 {
		return strings.Repeat(" ", w)
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	var b strings.Builder
	for _, x := range xs {
		i := len(sparkRunes) / 2
		if hi > lo {
			i = int((x - lo) / (hi - lo) * float64(len(sparkRunes)-1))
		}
		b.WriteRune(sparkRunes[max(0, min(i, len(sparkRunes)-1))])
	}
	return b.String() + strings.Repeat(" ", w-len(xs))
}
