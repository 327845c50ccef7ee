package compare

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/benchtui/benchtui/artifacts"
)

// provenanceWarnings say how the two runs of a group differ in what produced
// them: plan, group config, runner, host, tool version, completeness.
func provenanceWarnings(b, c *artifacts.Artifact) []string {
	id := c.Group.ID
	var w []string
	differ := func(what, bv, cv string) {
		if bv != cv {
			w = append(w, fmt.Sprintf("%s: %s differs (base %s, current %s)", id, what, OrNone(bv), OrNone(cv)))
		}
	}
	differ("plan sha256", short(b.Run.PlanSHA256), short(c.Run.PlanSHA256))
	differ("runner", b.Group.Runner, c.Group.Runner)
	bc, cc := b.Group.Config, c.Group.Config
	if b.Group.ConfigAsWritten != nil && c.Group.ConfigAsWritten != nil {
		bc, cc = b.Group.ConfigAsWritten, c.Group.ConfigAsWritten
	}
	if !sameJSON(bc, cc) {
		w = append(w, id+": group config differs")
	}
	differ("host", HostString(b.Run.Host), HostString(c.Run.Host))
	differ("tool version", b.Run.ToolVersion, c.Run.ToolVersion)
	if b.Run.Partial {
		w = append(w, id+": base run is partial")
	}
	if c.Run.Partial {
		w = append(w, id+": current run is partial")
	}
	return w
}

// countWarnings say that errors or drops happened on either side of a step:
// the latency figures of such a step describe only what succeeded.
func countWarnings(where string, b, c *artifacts.Step) []string {
	var w []string
	for _, side := range []struct {
		name string
		s    *artifacts.Step
	}{{"base", b}, {"current", c}} {
		s := side.s
		if s.Errors > 0 {
			w = append(w, fmt.Sprintf("%s: %s has %d errors in %d operations (%.3g%%)",
				where, side.name, s.Errors, s.Requests, 100*Ratio(s.Errors, s.Requests)))
		}
		if s.Dropped > 0 {
			w = append(w, fmt.Sprintf("%s: %s dropped %d operations", where, side.name, s.Dropped))
		}
	}
	return w
}

// HostString names a host as "os/N cpus/go version", "" when unknown.
func HostString(h artifacts.Host) string {
	if h == (artifacts.Host{}) {
		return ""
	}
	return fmt.Sprintf("%s/%d cpus/%s", h.OS, h.CPUs, h.Go)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// OrNone is s, or "none" when empty.
func OrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// sameJSON compares two configs as their JSON encodings, so a config decoded
// from a file equals the one it was encoded from (numbers, key order).
func sameJSON(a, b map[string]any) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
