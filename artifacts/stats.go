package artifacts

import (
	"math"
	"sort"
)

// MannWhitney is the result of a two-sided Mann-Whitney U test (also called
// the Wilcoxon rank-sum test) of two independent samples. It is a value: the
// comparison keeps it next to the numbers it judges, as golang/perf's
// benchmath does.
type MannWhitney struct {
	N1, N2 int     // sample sizes
	U      float64 // U statistic of the first sample
	P      float64 // two-sided p-value; 1 when either sample is empty
	Exact  bool    // P comes from the exact null distribution, not the normal approximation
}

// exactLimit bounds the sample sizes for which the exact distribution of U is
// computed. Beyond it the normal approximation is within a fraction of a
// percent and far cheaper.
const exactLimit = 50

// MannWhitneyU tests whether x and y come from the same distribution against
// the two-sided alternative that one tends to be larger. Without ties and with
// both samples of at most 50 values the p-value is exact; otherwise it uses
// the normal approximation with tie and continuity corrections.
func MannWhitneyU(x, y []float64) MannWhitney {
	r := MannWhitney{N1: len(x), N2: len(y), P: 1}
	if len(x) == 0 || len(y) == 0 {
		return r
	}
	rankSum, ties := rankSumFirst(x, y)
	n1, n2 := float64(len(x)), float64(len(y))
	r.U = rankSum - n1*(n1+1)/2
	if ties == 0 && len(x) <= exactLimit && len(y) <= exactLimit {
		r.P, r.Exact = exactP(len(x), len(y), r.U), true
		return r
	}
	r.P = normalP(n1, n2, r.U, ties)
	return r
}

// rankSumFirst ranks the pooled samples, giving tied values their mean rank,
// and returns the rank sum of x and the tie term sum(t^3 - t) over groups of
// t tied values.
func rankSumFirst(x, y []float64) (rankSum, ties float64) {
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, len(x)+len(y))
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of the 1-based ranks i+1 .. j
		for k := i; k < j; k++ {
			if all[k].first {
				rankSum += rank
			}
		}
		if t := float64(j - i); t > 1 {
			ties += t*t*t - t
		}
		i = j
	}
	return rankSum, ties
}

// normalP is the two-sided p-value of U under the normal approximation, with
// the variance corrected for ties and a continuity correction of 1/2.
func normalP(n1, n2, u, ties float64) float64 {
	n := n1 + n2
	mean := n1 * n2 / 2
	variance := n1 * n2 / 12 * ((n + 1) - ties/(n*(n-1)))
	if variance <= 0 {
		return 1 // every value equal: no evidence of a difference
	}
	z := math.Abs(u-mean) - 0.5
	if z < 0 {
		z = 0
	}
	z /= math.Sqrt(variance)
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// exactP is the two-sided p-value of U for samples of m and n values without
// ties: twice the smaller tail of the exact null distribution.
func exactP(m, n int, u float64) float64 {
	counts := uCounts(m, n)
	var total, lower, upper float64
	for k, c := range counts {
		total += c
		if float64(k) <= u+1e-9 {
			lower += c
		}
		if float64(k) >= u-1e-9 {
			upper += c
		}
	}
	return math.Min(1, 2*math.Min(lower, upper)/total)
}

// uCounts returns, for each U in 0..m*n, how many of the C(m+n, m)
// arrangements of two samples give that U. These are the coefficients of the
// Gaussian binomial coefficient [m+n choose m]_q, built as the product over
// i = 1..m of (1 - q^(n+i)) / (1 - q^i); each partial product is itself a
// polynomial, so the division is exact.
func uCounts(m, n int) []float64 {
	c := make([]float64, m*n+1)
	c[0] = 1
	for i := 1; i <= m; i++ {
		for k := len(c) - 1; k >= n+i; k-- { // multiply by 1 - q^(n+i)
			c[k] -= c[k-n-i]
		}
		for k := i; k < len(c); k++ { // divide by 1 - q^i
			c[k] += c[k-i]
		}
	}
	return c
}

// median returns the median of xs, or 0 for none. It does not modify xs.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// TwoProportions tests whether k1 of n1 and k2 of n2 are the same proportion
// (a pooled two-proportion z-test) and returns the two-sided p-value; 1 when
// either n is zero or nothing happened on either side.
func TwoProportions(k1, n1, k2, n2 int64) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	p1, p2 := float64(k1)/float64(n1), float64(k2)/float64(n2)
	pool := float64(k1+k2) / float64(n1+n2)
	se := math.Sqrt(pool * (1 - pool) * (1/float64(n1) + 1/float64(n2)))
	if se == 0 {
		return 1
	}
	z := math.Abs(p1-p2) / se
	return math.Erfc(z / math.Sqrt2)
}
