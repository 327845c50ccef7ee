//go:build unix

package pgload_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/pgload"
)

// BenchmarkStartEmbedded starts and stops one embedded cluster per
// iteration, reporting StartEmbedded's wall time and the CPU of the start
// and stop cycle: this process and its reaped children (initdb, the
// postmaster and its backends).
func BenchmarkStartEmbedded(b *testing.B) {
	if _, err := pgload.FindBinDir(""); errors.Is(err, pgload.ErrNoPostgres) {
		b.Skipf("no Postgres to test against: %v", err)
	}
	var wall time.Duration
	cpu0 := cpuWithChildren()
	for range b.N {
		t0 := time.Now()
		e, err := pgload.StartEmbedded(context.Background(), pgload.EmbeddedOptions{})
		wall += time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Stop(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "start-ms/op")
	b.ReportMetric(float64((cpuWithChildren()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuWithChildren is the user and system CPU of this process and of its
// reaped children.
func cpuWithChildren() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}
