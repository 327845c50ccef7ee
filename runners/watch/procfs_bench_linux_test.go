package watch

import (
	"os"
	"testing"

	"github.com/prometheus/procfs"
)

// sampleProcfs is SampleProc done with prometheus/procfs, kept here to
// compare costs (BenchmarkSampleProcfs against BenchmarkSampleProc).
func sampleProcfs(pid int) (Sample, error) {
	p, err := procFS.Proc(pid)
	if err != nil {
		return Sample{}, err
	}
	st, err := p.Stat()
	if err != nil {
		return Sample{}, err
	}
	fds, err := p.FileDescriptorsLen()
	if err != nil {
		return Sample{}, err
	}
	return Sample{RSSBytes: int64(st.ResidentMemory()), FDs: fds, Threads: st.NumThreads, CPUSeconds: st.CPUTime()}, nil
}

func BenchmarkSampleProcHand(b *testing.B) {
	for b.Loop() {
		if _, err := SampleProc(os.Getpid()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSampleProcfs(b *testing.B) {
	for b.Loop() {
		if _, err := sampleProcfs(os.Getpid()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSmapsRollupProcfs(b *testing.B) {
	for b.Loop() {
		if _, _, err := samplePSS(os.Getpid()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStatusProcfs(b *testing.B) {
	p, err := procfs.NewProc(os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := p.NewStatus(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSampleProcfsAgrees(t *testing.T) {
	a, err := SampleProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	b, err := sampleProcfs(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if a.Threads != b.Threads || diffRatio(float64(a.RSSBytes), float64(b.RSSBytes)) > 0.1 {
		t.Errorf("hand %+v, procfs %+v", a, b)
	}
}
