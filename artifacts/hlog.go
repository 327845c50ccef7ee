package artifacts

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// IntervalLog is a step's latency over time in the HdrHistogram interval
// log format (".hlog", as HistogramLogAnalyzer and the hdrhistogram
// libraries read it): one line per interval, each the interval's
// histogram (microseconds) in the V2 compressed encoding, stamped with
// absolute times in seconds since the epoch. Intervals are kept encoded,
// a few hundred bytes each, so a long soak's log stays small.
type IntervalLog struct {
	start time.Time
	body  bytes.Buffer // the interval lines, in order
	n     int
}

// NewIntervalLog returns an empty log whose StartTime header is start.
func NewIntervalLog(start time.Time) *IntervalLog {
	return &IntervalLog{start: start}
}

// Add appends h as the interval [from, to). h keeps its contents; its
// start and end stamps are overwritten.
func (l *IntervalLog) Add(h *hdrhistogram.Histogram, from, to time.Time) error {
	h.SetStartTimeMs(from.UnixMilli())
	h.SetEndTimeMs(to.UnixMilli())
	if err := hdrhistogram.NewHistogramLogWriter(&l.body).OutputIntervalHistogram(h); err != nil {
		return fmt.Errorf("writing interval log: %w", err)
	}
	l.n++
	return nil
}

// Len is the number of intervals in the log.
func (l *IntervalLog) Len() int { return l.n }

// Append adds the intervals of o after l's (a repeated step's runs, end
// to end).
func (l *IntervalLog) Append(o *IntervalLog) {
	l.body.Write(o.body.Bytes())
	l.n += o.n
}

// Clone is an independent copy of l.
func (l *IntervalLog) Clone() *IntervalLog {
	c := &IntervalLog{start: l.start, n: l.n}
	c.body.Write(l.body.Bytes())
	return c
}

// WriteTo writes the whole log: the format version, a comment naming the
// unit, the start time, the legend and the intervals.
func (l *IntervalLog) WriteTo(w io.Writer) (int64, error) {
	var head bytes.Buffer
	lw := hdrhistogram.NewHistogramLogWriter(&head)
	lw.OutputLogFormatVersion()
	lw.OutputComment("[benchtui: latency from due time, in microseconds]")
	head.WriteString(StartTimeLine(l.start))
	lw.OutputLegend()
	n, err := w.Write(head.Bytes())
	if err != nil {
		return int64(n), err
	}
	m, err := w.Write(l.body.Bytes())
	return int64(n + m), err
}

// StartTimeLine is the "#[StartTime: …]" line of an interval log starting
// at t, byte for byte as HdrHistogram Java's HistogramLogWriter writes it
// in the UTC time zone: seconds since the epoch with the milliseconds
// (3 decimals; hdrhistogram-go's writer drops them, and a reader's first
// interval then starts up to a second off), then java.util.Date's
// toString of t.
func StartTimeLine(t time.Time) string {
	ms := t.UnixMilli()
	date := time.UnixMilli(ms).UTC().Format("Mon Jan 02 15:04:05 MST 2006")
	return fmt.Sprintf("#[StartTime: %s (seconds since epoch), %s]\n", javaFixed(float64(ms)/1000, 3), date)
}

// HLogName is the file name of step i's (0-based) interval log beside
// the artifact named artifactName: "<artifact base>-step<i+1>.hlog".
func HLogName(artifactName string, i int) string {
	return stepFileName(artifactName, i, ".hlog")
}

// HGRMName is the file name of step i's (0-based) percentile distribution
// (WriteHGRM) for the artifact named artifactName:
// "<artifact base>-step<i+1>.hgrm".
func HGRMName(artifactName string, i int) string {
	return stepFileName(artifactName, i, ".hgrm")
}

// stepFileName is "<artifact base>-step<i+1><ext>".
func stepFileName(artifactName string, i int, ext string) string {
	return fmt.Sprintf("%s-step%d%s", strings.TrimSuffix(artifactName, ".json"), i+1, ext)
}

// hlogFiles are the interval logs of the steps that have one, to be
// written beside the artifact at path; each is named in its step
// (Step.HLog).
func hlogFiles(path string, a *Artifact) []fileData {
	var files []fileData
	for i := range a.Steps {
		s := &a.Steps[i]
		if s.IntervalLog == nil || s.IntervalLog.Len() == 0 {
			continue
		}
		name := HLogName(filepath.Base(path), i)
		var buf bytes.Buffer
		s.IntervalLog.WriteTo(&buf)
		files = append(files, fileData{filepath.Join(filepath.Dir(path), name), buf.Bytes()})
		s.HLog = name
	}
	return files
}

// ReadIntervalLog reads every interval histogram of the .hlog file at
// path, in order.
func ReadIntervalLog(path string) ([]*hdrhistogram.Histogram, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading interval log: %w", err)
	}
	defer f.Close()
	return readIntervals(f, path)
}

// MaxIntervals bounds the intervals read from one log (and merged from
// shards' logs): a day-long soak
// keeps a few thousand (the engine doubles their length past MaxBlocks).
const MaxIntervals = 100_000

// readIntervals reads the interval histograms of the log in r, named name,
// at most MaxIntervals.
func readIntervals(r io.Reader, name string) ([]*hdrhistogram.Histogram, error) {
	lr := hdrhistogram.NewHistogramLogReader(r)
	var out []*hdrhistogram.Histogram
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			return nil, fmt.Errorf("reading interval log %s: %w", name, err)
		}
		if h == nil {
			return out, nil
		}
		if len(out) == MaxIntervals {
			return nil, fmt.Errorf("reading interval log %s: more than %d intervals", name, MaxIntervals)
		}
		out = append(out, h)
	}
}

// String is the whole log as WriteTo writes it.
func (l *IntervalLog) String() string {
	var b strings.Builder
	l.WriteTo(&b)
	return b.String()
}
