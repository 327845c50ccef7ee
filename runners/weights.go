package runners

import (
	"math/rand/v2"
	"slices"
)

// PickWeighted draws an index of a weighted mix by its cumulative
// weights (cum[i]: the weights of entries 0 to i, each at least 1).
func PickWeighted(rnd *rand.Rand, cum []int) int {
	if len(cum) == 1 {
		return 0
	}
	n := rnd.IntN(cum[len(cum)-1])
	i, _ := slices.BinarySearch(cum, n+1)
	return i
}
