package artifacts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// ProbeStats are the figures of one probe (the plan's `probes:`) over a
// step's measured phase: the least, greatest and last value read, the
// least-squares slope per minute, how many reads succeeded (Samples) and
// failed (Errors), and the series of reads. With Samples 0, Min, Max, Last
// and SlopePerMin are 0 and mean nothing.
type ProbeStats struct {
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Last float64 `json:"last"`
	// Mean is the mean of every successful read (not only of the kept
	// series); 0 in artifacts written before it was kept.
	Mean        float64 `json:"mean,omitempty"`
	SlopePerMin float64 `json:"slope_per_min"`
	// TailSlopePerMin is the slope over the last window of the step, of
	// the probe a soak policy watches (soak.extend_while_rising: its
	// window); what its leak verdict is judged by. Nil for other probes
	// and when the window held too few reads.
	TailSlopePerMin *float64     `json:"tail_slope_per_min,omitempty"`
	Samples         int64        `json:"samples"`
	Errors          int64        `json:"errors"`
	Series          []ProbePoint `json:"series"`
}

// ProbePoint is one read of a probe: T seconds of active time since the
// measured phase began, and the value. A failed read is a gap (Gap true)
// written as [t, null].
type ProbePoint struct {
	T     float64
	Value float64
	Gap   bool
}

// MarshalJSON writes p as [t, value], or [t, null] for a gap.
func (p ProbePoint) MarshalJSON() ([]byte, error) {
	if p.Gap || math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
		return fmt.Appendf(nil, "[%s,null]", jsonFloat(p.T)), nil
	}
	return fmt.Appendf(nil, "[%s,%s]", jsonFloat(p.T), jsonFloat(p.Value)), nil
}

// UnmarshalJSON reads [t, value] or [t, null].
func (p *ProbePoint) UnmarshalJSON(b []byte) error {
	var pair []*float64
	if err := json.Unmarshal(b, &pair); err != nil {
		return fmt.Errorf("probe point: %w", err)
	}
	if len(pair) != 2 || pair[0] == nil {
		return fmt.Errorf("probe point: want [t, value], got %s", bytes.TrimSpace(b))
	}
	*p = ProbePoint{T: *pair[0], Gap: pair[1] == nil}
	if pair[1] != nil {
		p.Value = *pair[1]
	}
	return nil
}

func jsonFloat(f float64) string {
	b, err := json.Marshal(f)
	if err != nil {
		return "0"
	}
	return string(b)
}
