package main

import (
	"fmt"
	"io"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
)

// othersProgress is the progress line's part for a group's further
// targets: " | worker rss 88.1MB fds 8" for each one sampled.
func othersProgress(s engine.Snapshot) string {
	var out string
	for _, o := range s.Others {
		if o.ProcSample != nil {
			out += fmt.Sprintf(" | %s rss %.1fMB fds %d", o.Name, o.RSSMB, o.FDs)
		}
	}
	return out
}

// printTargets writes a line per target of a step that watched several,
// and one for their sum.
func printTargets(w io.Writer, s artifacts.Step) {
	if len(s.Targets) < 2 {
		return
	}
	line := func(name string, t *artifacts.TargetStats) {
		fmt.Fprintf(w, "  %s %s: rss %.1f→%.1f MB (peak %.1f), slope %.2f MB/min, fds %.0f→%.0f, cpu %.2f cores (peak %.2f)\n",
			s.Label, name, t.RSSMB.Start, t.RSSMB.End, t.RSSMB.Peak, t.RSSSlopeMBPerMin, t.FDs.Start, t.FDs.End, t.CPUCores, t.CPUCoresPeak)
	}
	for _, name := range s.TargetNames() {
		line("targets."+name, s.Targets[name])
	}
	if s.TargetsSum != nil {
		line("targets_sum", s.TargetsSum)
	}
}
