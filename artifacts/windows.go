package artifacts

import "fmt"

// WindowStep is the figures of one window of a step (a plan's windows:):
// the operations due within the spans of a named action's runs (during)
// or of a time after them (after … for), counted and timed as the step's
// are, from the same measurements.
type WindowStep struct {
	// During or After names the action the window follows.
	During string `json:"during,omitempty"`
	After  string `json:"after,omitempty"`
	// FromS and ToS are the offsets (active seconds) of the first span's
	// start and the last one's end, the latter at most the step's end;
	// Runs is how many spans there were (the action's runs, overlapping
	// ones joined). A window whose action never ran has none, and no
	// figures.
	FromS float64 `json:"from_s"`
	ToS   float64 `json:"to_s"`
	Runs  int     `json:"runs"`
	// Requests and Errors count the operations due within the spans;
	// their latencies (from due time) give LatencyMS and Histogram.
	Requests  int64       `json:"requests"`
	Errors    int64       `json:"errors"`
	LatencyMS Percentiles `json:"latency_ms"`
	Histogram string      `json:"histogram,omitempty"`
}

// famWindows names the windows' figures: windows.NAME.p99.
const famWindows = "windows"

// windowLeaves are a window's figures (percentiles aside).
var windowLeaves = []string{"max", "mean", "min", "requests", "errors", "error_rate"}

// windowFigure reads windows.NAME.LEAF, as a named request's figure.
func windowFigure(s *Step, f Figure) (float64, error) {
	w, ok := s.Windows[f.name]
	if !ok {
		return 0, absent(f, sortedKeys(s.Windows))
	}
	if w.Runs == 0 {
		return 0, fmt.Errorf("window %q never opened in this step: its action %s never ran", f.name, w.During+w.After)
	}
	if w.Requests == 0 && f.Millis() {
		return 0, fmt.Errorf("window %q held no operation in this step: it has no latency", f.name)
	}
	return byNameFigure(NamedStep{Requests: w.Requests, Errors: w.Errors, LatencyMS: w.LatencyMS, Histogram: w.Histogram}, f)
}

// windows checks a step's windows: counts in range (at most the step's),
// offsets within the step, percentiles and histogram sound.
func (c *checker) windows(path string, s *Step) {
	for _, name := range sortedKeys(s.Windows) {
		w, p := s.Windows[name], path+".windows."+name
		c.count(p+".requests", w.Requests)
		c.atMost(p+".requests", w.Requests, path+".requests", s.Requests)
		c.count(p+".errors", w.Errors)
		c.atMost(p+".errors", w.Errors, p+".requests", w.Requests)
		c.count(p+".runs", int64(w.Runs))
		c.within(p+".from_s", w.FromS, 0, MaxStepSeconds)
		c.within(p+".to_s", w.ToS, w.FromS, MaxStepSeconds)
		c.percentiles(p+".latency_ms", w.LatencyMS)
		if w.Histogram != "" {
			if _, err := DecodeHistogram(w.Histogram); err != nil {
				c.fail(p+".histogram", "%v", err)
			}
		}
	}
}
