package watch

import (
	"os"
	"testing"
)

// BenchmarkSmapsRollupProcfs is one PSS/USS reading of this process (a
// `tree: true` target costs one per process per sample).
func BenchmarkSmapsRollupProcfs(b *testing.B) {
	for b.Loop() {
		if _, _, err := samplePSS(os.Getpid()); err != nil {
			b.Fatal(err)
		}
	}
}
