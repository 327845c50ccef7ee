package watch

import (
	"math"
	"time"
)

// ShouldExtend reports whether a soak step should run for one more step:
// while the RSS tail slope is above the threshold (both MB/min), as long as
// the extensions so far plus one more step stay within limit (the most a
// step may be extended in all). A NaN slope or a step <= 0 never extends.
func ShouldExtend(tailSlopeMBPerMin, thresholdMBPerMin float64, extendedSoFar, step, limit time.Duration) bool {
	if step <= 0 || math.IsNaN(tailSlopeMBPerMin) {
		return false
	}
	return tailSlopeMBPerMin > thresholdMBPerMin && extendedSoFar+step <= limit
}
