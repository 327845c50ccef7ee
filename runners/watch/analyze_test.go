package watch

import (
	"math"
	"runtime"
	"testing"
	"time"
)

// series makes samples every step from 0 to d whose RSS is f(t seconds) MB.
func series(step, d time.Duration, f func(sec float64) float64) []TimedSample {
	var out []TimedSample
	for t := time.Duration(0); t <= d; t += step {
		out = append(out, TimedSample{T: t, Sample: Sample{
			RSSBytes: int64(f(t.Seconds()) * bytesPerMB), FDs: 10, Threads: 4,
		}})
	}
	return out
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestSlope(t *testing.T) {
	t.Parallel()
	if got := Slope([]float64{0, 1, 2, 3}, []float64{1, 3, 5, 7}); got != 2 {
		t.Errorf("Slope of y=2t+1: %v", got)
	}
	if got := Slope([]float64{1e6, 1e6 + 1, 1e6 + 2}, []float64{5, 5.5, 6}); !near(got, 0.5, 1e-9) {
		t.Errorf("Slope at large t: %v", got)
	}
	for _, c := range [][2][]float64{{nil, nil}, {{1}, {1}}, {{2, 2}, {1, 5}}} {
		if got := Slope(c[0], c[1]); got != 0 {
			t.Errorf("Slope(%v, %v) = %v, want 0", c[0], c[1], got)
		}
	}
}

func TestAnalyze(t *testing.T) {
	t.Parallel()
	// Warmup: 100 MB/min for 60 s; then 6 MB/min; the last 60 s flat.
	rss := func(s float64) float64 {
		switch {
		case s < 60:
			return 40 + s*100/60
		case s < 240:
			return 140 + (s-60)*6/60
		}
		return 158
	}
	samples := series(time.Second, 300*time.Second, rss)
	for i := range samples {
		samples[i].CPUSeconds = samples[i].T.Seconds() * 0.37
		samples[i].FDs = 12 + min(i, 100)*7 - max(0, i-200)*7
		samples[i].Threads = 4 + i%3
	}
	samples[5].FDs = -1 // an unreadable reading is skipped
	st := Analyze(samples, 60*time.Second, 55*time.Second, 500)
	if !near(st.RSSMB.Start, 40, 0.01) || !near(st.RSSMB.Peak, 158, 0.01) || !near(st.RSSMB.End, 158, 0.01) {
		t.Errorf("rss %+v", st.RSSMB)
	}
	if st.RSSSlopeMBPerMin < 3 || st.RSSSlopeMBPerMin > 6 {
		// 180 s at 6 MB/min then 60 s flat: the least-squares line is below 6.
		t.Errorf("slope after warmup %.2f, want between 3 and 6", st.RSSSlopeMBPerMin)
	}
	if !near(st.RSSTailSlopeMBMin, 0, 0.01) {
		t.Errorf("tail slope %.3f, want 0", st.RSSTailSlopeMBMin)
	}
	if st.FDs.Start != 12 || st.FDs.Peak != 712 || st.FDs.End != 12 || !near(st.FDsPerUnit, 1.4, 1e-9) {
		t.Errorf("fds %+v per unit %v", st.FDs, st.FDsPerUnit)
	}
	if !near(st.CPUCores, 0.37, 1e-9) {
		t.Errorf("cpu cores %v", st.CPUCores)
	}
	if st.Threads.Start != 4 || st.Threads.Peak != 6 {
		t.Errorf("threads %+v", st.Threads)
	}
	if zero := Analyze(nil, 0, 0, 3); zero.RSSMB.Peak != 0 || zero.FDsPerUnit != 0 {
		t.Errorf("Analyze(nil) = %+v", zero)
	}
	if st := Analyze(samples, 0, 0, 0); st.FDsPerUnit != 0 {
		t.Errorf("fds per unit without units: %v", st.FDsPerUnit)
	}
}

func TestHistoryThinsInConstantMemory(t *testing.T) {
	t.Parallel()
	h := NewHistory(100)
	slope := 6.0 // MB/min
	const n = 10000
	for i := range n {
		sec := float64(i)
		mb := 100 + sec*slope/60
		if i == 1234 {
			mb += 2000 // a spike that thinning must not lose
		}
		h.Add(TimedSample{T: time.Duration(i) * time.Second, Sample: Sample{RSSBytes: int64(mb * bytesPerMB), FDs: 10 + i%7}})
		if h.Len() > 100 {
			t.Fatalf("history holds %d samples, limit 100", h.Len())
		}
	}
	if c := cap(h.samples); c != 100 {
		t.Errorf("history grew its buffer to %d", c)
	}
	s := h.Samples()
	if s[0].T != 0 || s[len(s)-1].T != (n-1)*time.Second {
		t.Errorf("first %v / last %v sample not kept", s[0].T, s[len(s)-1].T)
	}
	for i := 1; i < len(s); i++ {
		if s[i].T <= s[i-1].T {
			t.Fatalf("samples out of order at %d", i)
		}
	}
	if d := s[len(s)-1].T - s[len(s)-2].T; d != time.Second {
		t.Errorf("recent samples thinned: spacing %v", d)
	}
	st := h.Analyze(0, 30*time.Second, 0)
	if !near(st.RSSSlopeMBPerMin, slope, 0.01) || !near(h.TailSlope(30*time.Second), slope, 0.01) {
		t.Errorf("slope %.3f, tail %.3f, want %.1f", st.RSSSlopeMBPerMin, h.TailSlope(30*time.Second), slope)
	}
	if want := 100 + 1234*slope/60 + 2000; !near(st.RSSMB.Peak, want, 0.01) || st.FDs.Peak != 16 {
		t.Errorf("peaks rss %.1f (want %.1f) fds %v", st.RSSMB.Peak, want, st.FDs.Peak)
	}
	var zero History
	zero.Add(TimedSample{})
	if _, ok := zero.Last(); !ok || zero.Len() != 1 || cap(zero.samples) != DefaultHistoryLimit {
		t.Error("zero History is not usable")
	}
}

func TestShouldExtend(t *testing.T) {
	t.Parallel()
	const m = time.Minute
	cases := []struct {
		name               string
		slope, threshold   float64
		sofar, step, limit time.Duration
		want               bool
	}{
		{"rising, room left", 6.5, 1, 0, m, 4 * m, true},
		{"rising, last step fits", 6.5, 1, 3 * m, m, 4 * m, true},
		{"rising, no room", 6.5, 1, 4 * m, m, 4 * m, false},
		{"rising, step overshoots", 6.5, 1, 3*m + 30*time.Second, m, 4 * m, false},
		{"flat", 0.57, 1, 0, m, 4 * m, false},
		{"at threshold", 1, 1, 0, m, 4 * m, false},
		{"falling", -3, 1, 0, m, 4 * m, false},
		{"no step", 6.5, 1, 0, 0, 4 * m, false},
		{"no max", 6.5, 1, 0, m, 0, false},
		{"NaN slope", math.NaN(), 1, 0, m, 4 * m, false},
	}
	for _, c := range cases {
		if got := ShouldExtend(c.slope, c.threshold, c.sofar, c.step, c.limit); got != c.want {
			t.Errorf("%s: ShouldExtend = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("net.core.rmem_max is read from /proc, on Linux only")
	}
	soft, hard, _, err := RaiseFDLimit()
	if err != nil {
		t.Fatal(err)
	}
	if soft == 0 || soft > hard {
		t.Errorf("fd limit soft %d hard %d", soft, hard)
	}
	rmem, err := UDPBufferMax()
	if err != nil {
		t.Fatal(err)
	}
	if rmem <= 0 {
		t.Errorf("rmem_max %d", rmem)
	}
	t.Logf("fd limit %d/%d, rmem_max %d (QUIC wants %d)", soft, hard, rmem, QUICWantUDPBuffer)
}
