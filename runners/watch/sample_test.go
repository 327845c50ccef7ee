//go:build linux

package watch

import (
	"math"
	"net"
	"os"
	"testing"
	"time"
)

// watch samples p every period for d into a History, as the engine does.
func watch(t *testing.T, p *Process, period, d time.Duration) *History {
	t.Helper()
	s := p.Sampler()
	h := NewHistory(DefaultHistoryLimit)
	start := time.Now()
	tick := time.NewTicker(period)
	defer tick.Stop()
	for time.Since(start) < d {
		cur, err := s.Sample()
		if err != nil {
			t.Fatalf("sampling: %v", err)
		}
		h.Add(TimedSample{T: time.Since(start), Sample: cur})
		<-tick.C
	}
	return h
}

func TestLeakySlope(t *testing.T) {
	t.Parallel()
	// 1 MiB every 200ms is 300 MB/min.
	p := startLeaky(t, Config{Ready: "stdout:/^ready$/"}, "-leak-mb", "1", "-every", "200ms")
	h := watch(t, p, 100*time.Millisecond, 4500*time.Millisecond)
	st := h.Analyze(500*time.Millisecond, 2*time.Second, 0)
	const truth = 300.0
	if math.Abs(st.RSSSlopeMBPerMin-truth) > 0.25*truth {
		t.Errorf("slope %.1f MB/min, want %.0f ±25%%", st.RSSSlopeMBPerMin, truth)
	}
	if math.Abs(st.RSSTailSlopeMBMin-truth) > 0.25*truth {
		t.Errorf("tail slope %.1f MB/min, want %.0f ±25%%", st.RSSTailSlopeMBMin, truth)
	}
	if st.RSSMB.Peak < st.RSSMB.Start+10 || st.RSSMB.End < st.RSSMB.Peak-1 {
		t.Errorf("rss range %+v does not show a climb of ~20 MB", st.RSSMB)
	}
	if !ShouldExtend(st.RSSTailSlopeMBMin, 1, 0, time.Minute, 9*time.Minute) {
		t.Error("a leaking target would not be extended")
	}
	t.Logf("leaky: slope %.1f, tail %.1f MB/min, rss %+v", st.RSSSlopeMBPerMin, st.RSSTailSlopeMBMin, st.RSSMB)
}

func TestFlatSlope(t *testing.T) {
	t.Parallel()
	p := startLeaky(t, Config{Ready: "stdout:/^ready$/"})
	h := watch(t, p, 100*time.Millisecond, 3*time.Second)
	st := h.Analyze(500*time.Millisecond, 2*time.Second, 0)
	if math.Abs(st.RSSSlopeMBPerMin) >= 1 {
		t.Errorf("flat target slope %.2f MB/min, want below 1", st.RSSSlopeMBPerMin)
	}
	if ShouldExtend(st.RSSTailSlopeMBMin, 1, 0, time.Minute, 9*time.Minute) {
		t.Errorf("a flat target (tail %.2f MB/min) would be extended", st.RSSTailSlopeMBMin)
	}
	if st.Threads.Start < 1 || st.FDs.Start < 3 || st.RSSMB.Start <= 0 {
		t.Errorf("implausible stats %+v", st)
	}
	t.Logf("flat: slope %.3f, tail %.3f MB/min", st.RSSSlopeMBPerMin, st.RSSTailSlopeMBMin)
}

func TestFDsPerUnit(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	p := startLeaky(t, Config{Ready: "stdout:/^ready$/"}, "-listen", addr)
	s := p.Sampler()
	h := NewHistory(0)
	start := time.Now()
	add := func() Sample {
		cur, err := s.Sample()
		if err != nil {
			t.Fatal(err)
		}
		h.Add(TimedSample{T: time.Since(start), Sample: cur})
		return cur
	}
	base := add()
	const n = 50
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	if !waitFor(5*time.Second, func() bool { return add().FDs >= base.FDs+n }) {
		t.Fatalf("target fds did not grow by %d from %d", n, base.FDs)
	}
	st := h.Analyze(0, 0, n)
	if math.Abs(st.FDsPerUnit-1) > 0.1 {
		t.Errorf("fds_per_unit %.2f, want 1 (fds %+v)", st.FDsPerUnit, st.FDs)
	}
}

func TestSampleProcSelfFDs(t *testing.T) {
	// Not parallel: it counts this process's fds.
	before, err := SampleProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	var files []*os.File
	for range 5 {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	after, err := SelfSampler().Sample()
	for _, f := range files {
		f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	if after.FDs-before.FDs != 5 {
		t.Errorf("fds %d -> %d after opening 5", before.FDs, after.FDs)
	}
	names, _ := os.ReadDir("/proc/self/task")
	if after.Threads < 1 || after.Threads > len(names)+16 || after.RSSBytes <= 0 || after.CPUSeconds < 0 {
		t.Errorf("implausible self sample %+v", after)
	}
}

func TestSamplerCores(t *testing.T) {
	t.Parallel()
	cpu := 10.0
	s := newSampler(func() (Sample, error) { return Sample{CPUSeconds: cpu}, nil })
	now := time.Unix(1000, 0)
	s.now = func() time.Time { return now }
	first, _ := s.Sample()
	if first.CPUCores != 0 {
		t.Errorf("first reading %v cores, want 0", first.CPUCores)
	}
	cpu, now = 11.5, now.Add(2*time.Second)
	got, _ := s.Sample()
	if got.CPUCores != 0.75 {
		t.Errorf("1.5 CPU seconds in 2 s: %v cores, want 0.75", got.CPUCores)
	}
}

// BenchmarkSampleProc measures one reading of this process (stat and fd
// listing), with its own few fds and with 1000 more open; the engine takes
// one per target per sample period.
func BenchmarkSampleProc(b *testing.B) {
	pid := os.Getpid()
	run := func(b *testing.B) {
		for b.Loop() {
			if _, err := SampleProc(pid); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("fds=self", run)
	b.Run("fds=+1000", func(b *testing.B) {
		openDevNull(b, 1000)
		run(b)
	})
}

// openDevNull opens n more fds until the benchmark ends.
func openDevNull(b *testing.B, n int) {
	b.Helper()
	for range n {
		f, err := os.Open(os.DevNull)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
	}
}

// TestSampleProcCountsFDsExactly: 50 more open files are 50 more fds,
// and the count is the kernel's own listing of /proc/self/fd (less the
// listing's fd).
func TestSampleProcCountsFDsExactly(t *testing.T) {
	// Not parallel: it counts this process's fds.
	before, err := SampleProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
	}
	after, err := SampleProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	if after.FDs-before.FDs != 50 || after.FDs != len(entries)-1 {
		t.Errorf("fds %d then %d with 50 more open, listing %d; want +50 and the listing less one", before.FDs, after.FDs, len(entries))
	}
	if _, err := SampleProc(0); err == nil {
		t.Error("sampling pid 0 succeeded")
	}
}
