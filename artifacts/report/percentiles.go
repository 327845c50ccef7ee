package report

import (
	"fmt"
	"io"

	"github.com/benchtui/benchtui/artifacts"
)

// PercentileTicks is the number of percentile rows per halving of the
// distance to 100%, as in HdrHistogram's outputPercentileDistribution
// (and HistogramLogProcessor) by default.
const PercentileTicks = 5

// WritePercentiles writes, for every step of every artifact, the
// percentile distribution of its latency histogram in HdrHistogram's
// text form (Value in ms, Percentile, TotalCount, 1/(1-Percentile), then
// the mean, deviation and max), which the HdrHistogram plotter and
// `vegeta report -type=hdrplot` readers take as it is. Each distribution
// follows a "# group · step" comment line; a step without a histogram is
// named and passed over.
func WritePercentiles(w io.Writer, arts []*artifacts.Artifact) error {
	first := true
	for _, a := range arts {
		for _, s := range a.Steps {
			if !first {
				fmt.Fprintln(w)
			}
			first = false
			if err := writeStepPercentiles(w, a, s); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeStepPercentiles(w io.Writer, a *artifacts.Artifact, s artifacts.Step) error {
	head := fmt.Sprintf("# %s · %s · %s · %d operations\n", a.Group.ID, s.Label, stamp(a), s.Requests)
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	if s.Histogram == "" {
		_, err := io.WriteString(w, "# no histogram\n")
		return err
	}
	h, err := artifacts.DecodeHistogram(s.Histogram)
	if err != nil {
		return fmt.Errorf("%s step %q: %w", a.Group.ID, s.Label, err)
	}
	// Values are recorded in microseconds and printed in milliseconds.
	_, err = h.PercentilesPrint(w, PercentileTicks, 1000)
	return err
}
