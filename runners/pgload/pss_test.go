//go:build linux

package pgload_test

import (
	"testing"

	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/watch"
)

// The embedded Postgres summed by PSS stays below its RSS sum: shared
// buffers, touched by every process, count once in PSS and in every
// process in RSS. The tests' shared cluster is read (a cluster of its
// own cost an initdb and a start: 44 s at load 35), in a database of this
// test's.
func TestEmbeddedPSSBelowRSS(t *testing.T) {
	skipWithoutPostgres(t)
	e, dsn := pgtest.Cluster(t), pgtest.NewDatabase(t)
	query[int64](t, dsn, "SELECT 1") // a backend comes and goes
	query[int64](t, dsn, "SELECT count(*) FROM generate_series(1, 100000)")
	s, err := watch.NewTreeSampler(e.PID()).Sample()
	if err != nil {
		t.Fatal(err)
	}
	if s.PSSBytes <= 0 || s.USSBytes <= 0 || s.PSSBytes >= s.RSSBytes || s.USSBytes > s.PSSBytes {
		t.Errorf("tree of %d: PSS %d MiB, USS %d MiB, RSS %d MiB: want 0 < USS <= PSS < RSS",
			e.PID(), s.PSSBytes>>20, s.USSBytes>>20, s.RSSBytes>>20)
	}
	t.Logf("RSS %.1f MiB, PSS %.1f MiB, USS %.1f MiB", float64(s.RSSBytes)/(1<<20), float64(s.PSSBytes)/(1<<20), float64(s.USSBytes)/(1<<20))
}
