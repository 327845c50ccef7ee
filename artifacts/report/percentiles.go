package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
)

// stepHistogram is one step's latency histogram and the .hgrm file name
// it gets.
type stepHistogram struct {
	name, encoded string
}

// stepHistograms are the histograms of every step of arts that has one,
// in order, each named "<artifact base>-step<N>.hgrm"; steps named in
// skipped have none.
func stepHistograms(arts []*artifacts.Artifact) (out []stepHistogram, skipped []string) {
	for _, a := range arts {
		base := artifacts.FileName(a.Group.ID, a.Run.Started)
		for i, s := range a.Steps {
			name := artifacts.HGRMName(base, i)
			if s.Histogram == "" {
				skipped = append(skipped, fmt.Sprintf("%s (%s · %s)", name, a.Group.ID, s.Label))
				continue
			}
			out = append(out, stepHistogram{name: name, encoded: s.Histogram})
		}
	}
	return out, skipped
}

// hgrm is the .hgrm text of one step's histogram.
func (s stepHistogram) hgrm() (string, error) {
	h, err := artifacts.DecodeHistogram(s.encoded)
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.name, err)
	}
	return artifacts.HGRM(h), nil
}

// WritePercentiles writes the percentile distribution of the one step of
// arts that has a latency histogram, in HdrHistogram Java's
// outputPercentileDistribution layout (artifacts.WriteHGRM: 5 ticks,
// values in ms). More than one such step is an error naming them: a
// .hgrm holds one distribution (WritePercentileFiles writes one each).
func WritePercentiles(w io.Writer, arts []*artifacts.Artifact) error {
	steps, _ := stepHistograms(arts)
	switch len(steps) {
	case 0:
		return errors.New("no step has a latency histogram")
	case 1:
		text, err := steps[0].hgrm()
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, text)
		return err
	}
	return fmt.Errorf("%d steps have a latency histogram (%s); a .hgrm holds one: name a single step's artifact, or give -o DIR for one file per step",
		len(steps), names(steps))
}

// WritePercentileFiles writes, into the folder dir (made if missing),
// one .hgrm per step of arts that has a latency histogram,
// "<artifact base>-step<N>.hgrm", each as WritePercentiles writes it. It
// returns the names written and the steps passed over (no histogram).
func WritePercentileFiles(dir string, arts []*artifacts.Artifact) (written, skipped []string, err error) {
	steps, skipped := stepHistograms(arts)
	if len(steps) == 0 {
		return nil, skipped, errors.New("no step has a latency histogram")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, skipped, fmt.Errorf("percentiles: %w", err)
	}
	for _, s := range steps {
		text, err := s.hgrm()
		if err != nil {
			return written, skipped, err
		}
		if err := artifacts.WriteFileAtomic(filepath.Join(dir, s.name), []byte(text)); err != nil {
			return written, skipped, err
		}
		written = append(written, s.name)
	}
	return written, skipped, nil
}

// names lists the first few steps' file names.
func names(steps []stepHistogram) string {
	const shown = 3
	var n []string
	for i, s := range steps {
		if i == shown {
			n = append(n, fmt.Sprintf("and %d more", len(steps)-shown))
			break
		}
		n = append(n, s.name)
	}
	return strings.Join(n, ", ")
}
