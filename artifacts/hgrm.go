package artifacts

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// HGRMTicks is the number of percentile rows per halving of the distance
// to 100% in a .hgrm distribution, Java's outputPercentileDistribution
// default (and HistogramLogProcessor's).
const HGRMTicks = 5

// HGRMScale turns the histograms' microseconds into the milliseconds a
// .hgrm shows (Java's outputValueUnitScalingRatio).
const HGRMScale = 1000.0

// WriteHGRM writes h's percentile distribution byte for byte as HdrHistogram
// Java's AbstractHistogram.outputPercentileDistribution(out, ticks, scale)
// prints it (the ".hgrm" text the HdrHistogram plotter and
// HistogramLogAnalyzer read): a header, one row per percentile level
// (Value/scale, Percentile, TotalCount, 1/(1-Percentile)), the 100% row,
// then Mean, StdDeviation, Max, Total count, Buckets and SubBuckets. The
// rows walk the levels as Java's PercentileIterator does and the numbers
// are formatted as Java's Formatter does (see javaFixed). ticks must be
// at least 1.
func WriteHGRM(w io.Writer, h *hdrhistogram.Histogram, ticks int, scale float64) error {
	if ticks < 1 {
		return fmt.Errorf("percentile distribution: ticks %d, want at least 1", ticks)
	}
	b := bufio.NewWriter(w)
	digits := int(h.SignificantFigures())
	fmt.Fprintf(b, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)")
	bars := h.Distribution()
	writePercentileRows(bars, h.TotalCount(), ticks, func(value int64, level float64, count int64, last bool) {
		p := level / 100
		fmt.Fprintf(b, "%12s %2s %10d", javaFixed(float64(value)/scale, digits), javaFixed(p, 12), count)
		if !last {
			fmt.Fprintf(b, " %14s", javaFixed(1/(1-p), 2))
		}
		b.WriteByte('\n')
	})
	mean, std := javaMeanStd(bars, h.TotalCount())
	fmt.Fprintf(b, "#[Mean    = %12s, StdDeviation   = %12s]\n", javaFixed(mean/scale, digits), javaFixed(std/scale, digits))
	fmt.Fprintf(b, "#[Max     = %12s, Total count    = %12d]\n", javaFixed(float64(h.Max())/scale, digits), h.TotalCount())
	buckets, subBuckets := javaBuckets(h)
	fmt.Fprintf(b, "#[Buckets = %12d, SubBuckets     = %12d]\n", buckets, subBuckets)
	return b.Flush()
}

// HGRM is WriteHGRM's text for h with the .hgrm defaults (HGRMTicks,
// microseconds shown in milliseconds).
func HGRM(h *hdrhistogram.Histogram) string {
	var s strings.Builder
	WriteHGRM(&s, h, HGRMTicks, HGRMScale) // a strings.Builder does not fail
	return s.String()
}

// writePercentileRows calls row for each row Java's PercentileIterator
// yields over bars (every bucket up to the one holding the last recorded
// value, in order): at each non-empty bucket, one row per level the
// running count has reached; at the bucket completing the count a single
// row, then the closing 100% row (last true). Levels advance by Java's
// arithmetic, so they are the same doubles.
func writePercentileRows(bars []hdrhistogram.Bar, total int64, ticks int,
	row func(value int64, level float64, count int64, last bool)) {
	if total <= 0 {
		return
	}
	level, cum := 0.0, int64(0)
	for _, bar := range bars {
		if bar.Count == 0 {
			continue
		}
		cum += bar.Count
		if cum >= total {
			row(bar.To, level, cum, false)
			row(bar.To, 100, cum, true)
			return
		}
		// Bounded: each row raises level by at least 100/(ticks·2^k), and the
		// rows stop once level passes 100·cum/total < 100.
		for pct := (100 * float64(cum)) / float64(total); pct >= level; level = nextPercentileLevel(level, ticks) {
			row(bar.To, level, cum, false)
		}
	}
}

// nextPercentileLevel is the level after level, as Java's
// PercentileIterator.incrementIterationLevel computes it: ticks steps per
// halving of the distance to 100%.
func nextPercentileLevel(level float64, ticks int) float64 {
	halvings := int64(math.Log(100/(100-level)) / math.Log(2))
	reportingTicks := int64(ticks) * int64(math.Pow(2, float64(halvings+1)))
	return level + 100/float64(reportingTicks)
}

// javaMeanStd are Java's getMean and getStdDeviation of the histogram
// whose buckets are bars: each bucket counted at its median equivalent
// value, summed in bucket order with Java's operations.
func javaMeanStd(bars []hdrhistogram.Bar, total int64) (mean, std float64) {
	if total <= 0 {
		return 0, 0
	}
	median := func(b hdrhistogram.Bar) float64 { return float64(b.From + (b.To-b.From+1)>>1) }
	sum := 0.0
	for _, b := range bars {
		if b.Count != 0 {
			sum += float64(median(b) * float64(b.Count)) // float64(): no fused multiply-add
		}
	}
	mean = sum / float64(total)
	dev2 := 0.0
	for _, b := range bars {
		if b.Count != 0 {
			d := median(b) - mean
			dev2 += float64(float64(d*d) * float64(b.Count))
		}
	}
	return mean, math.Sqrt(dev2 / float64(total))
}

// javaBuckets are the bucket and sub-bucket counts Java gives a histogram
// of h's range and precision (its outputPercentileDistribution footer).
func javaBuckets(h *hdrhistogram.Histogram) (buckets, subBuckets int) {
	largestSingleUnit := 2 * int64(math.Pow(10, float64(h.SignificantFigures())))
	subMagnitude := int(math.Ceil(math.Log(float64(largestSingleUnit)) / math.Log(2)))
	unitMagnitude := int(math.Log(float64(h.LowestTrackableValue())) / math.Log(2))
	subBuckets = 1 << subMagnitude
	smallestUntrackable := int64(subBuckets) << unitMagnitude
	buckets = 1
	for smallestUntrackable <= h.HighestTrackableValue() && buckets < 64 {
		if smallestUntrackable > math.MaxInt64/2 {
			return buckets + 1, subBuckets
		}
		smallestUntrackable <<= 1
		buckets++
	}
	return buckets, subBuckets
}
