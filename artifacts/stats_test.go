package artifacts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestMannWhitneyExactKnown(t *testing.T) {
	// The example of R's ?wilcox.test: W = 35, two-sided p = 0.2544 (exact).
	x := []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}
	y := []float64{1.15, 0.88, 0.90, 0.74, 1.21}
	r := MannWhitneyU(x, y)
	if r.U != 35 || !r.Exact || math.Abs(r.P-0.2544) > 0.0005 {
		t.Errorf("got U=%v exact=%v p=%.4f, want U=35 exact p=0.2544", r.U, r.Exact, r.P)
	}
}

func TestMannWhitneyExtremes(t *testing.T) {
	// Complete separation of 5 and 5: p = 2/C(10,5) = 2/252.
	r := MannWhitneyU([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10})
	if r.U != 0 || math.Abs(r.P-2.0/252) > 1e-12 {
		t.Errorf("separated: U=%v p=%v, want 0 and %v", r.U, r.P, 2.0/252)
	}
	if r := MannWhitneyU([]float64{3, 3, 3}, []float64{3, 3, 3}); r.P != 1 {
		t.Errorf("all equal: p=%v, want 1", r.P)
	}
	if r := MannWhitneyU(nil, []float64{1}); r.P != 1 {
		t.Errorf("empty: p=%v, want 1", r.P)
	}
}

func TestMannWhitneyTiesNormal(t *testing.T) {
	// With ties the normal approximation applies. x = {1,2,2,3}, y = {2,3,4,5}:
	// ranks 1,3,3,3,5.5,5.5,7,8; R1 = 1+3+3+5.5 = 12.5, U = 2.5; tie groups
	// of 3 and 2: sum(t^3-t) = 24+6 = 30; var = 16/12*(9-30/56) = 11.2857;
	// z = (|2.5-8|-0.5)/3.3594 = 1.4883; p = 0.1367.
	r := MannWhitneyU([]float64{1, 2, 2, 3}, []float64{2, 3, 4, 5})
	if r.Exact || r.U != 2.5 || math.Abs(r.P-0.1367) > 0.0005 {
		t.Errorf("got U=%v exact=%v p=%.4f, want U=2.5 normal p=0.1367", r.U, r.Exact, r.P)
	}
}

func TestMannWhitneyExactMatchesNormalForLargeSamples(t *testing.T) {
	// At 40 per side the exact and the normal p agree closely: a check that
	// the exact distribution is built right.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		x, y := normals(rng, 40, 100, 3), normals(rng, 40, 101, 3)
		exact := MannWhitneyU(x, y)
		rs, ties := rankSumFirst(x, y)
		approx := normalP(40, 40, rs-40*41/2, ties)
		if !exact.Exact || math.Abs(exact.P-approx) > 0.01 {
			t.Fatalf("exact p=%.4f normal p=%.4f", exact.P, approx)
		}
	}
}

func TestUCountsSumToBinomial(t *testing.T) {
	c := uCounts(5, 7)
	var sum float64
	for _, v := range c {
		sum += v
	}
	if sum != 792 || c[0] != 1 || c[35] != 1 { // C(12,5) = 792
		t.Errorf("sum=%v c[0]=%v c[35]=%v", sum, c[0], c[35])
	}
}

func TestTwoProportions(t *testing.T) {
	if p := TwoProportions(0, 1000, 0, 1000); p != 1 {
		t.Errorf("no events: p=%v", p)
	}
	if p := TwoProportions(0, 100000, 100, 100000); p > 1e-6 {
		t.Errorf("0 vs 100 errors in 1e5: p=%v, want tiny", p)
	}
	if p := TwoProportions(10, 10000, 11, 10000); p < 0.5 {
		t.Errorf("10 vs 11 errors in 1e4: p=%v, want large", p)
	}
}

func normals(rng *rand.Rand, n int, mean, sd float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = mean + sd*rng.NormFloat64()
	}
	return out
}

func TestNaturalOrder(t *testing.T) {
	ids := []string{"G10", "G2", "G1", "G3b", "G3a", "PG2"}
	sortNatural(ids)
	if got := fmt.Sprint(ids); got != "[G1 G2 G3a G3b G10 PG2]" {
		t.Errorf("got %s", got)
	}
}
