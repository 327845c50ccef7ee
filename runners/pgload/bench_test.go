//go:build unix

package pgload_test

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/loop"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// BenchmarkWorkers measures the runner's workers alone, without the
// engine: 8 goroutines back to back on the shared test cluster (or on
// BTPG_BENCH_DSN, where select-only expects pgbench's tables at scale 1 or
// more), reporting ops/s and this process's CPU per operation.
// bench/pg-vs-pgbench.sh measures the whole CLI against pgbench.
func BenchmarkWorkers(b *testing.B) {
	dsn := os.Getenv("BTPG_BENCH_DSN")
	var setup []string
	if dsn == "" {
		dsn = pgtest.NewDatabase(b)
		setup = []string{"CREATE TABLE pgbench_accounts(aid int PRIMARY KEY, abalance int NOT NULL DEFAULT 0)",
			"INSERT INTO pgbench_accounts(aid) SELECT generate_series(1, 100000)"}
	}
	cases := map[string]pgload.Statement{
		"select1": {SQL: "SELECT 1"},
		"select-only": {SQL: "SELECT abalance FROM pgbench_accounts WHERE aid = $1",
			Args: []string{"$rand_int:1:100000"}},
	}
	for _, conn := range []string{"", pgload.ConnectionPerWorker} {
		for _, name := range []string{"select1", "select-only"} {
			full := name
			if conn != "" {
				full += "-" + conn
			}
			b.Run(full, func(b *testing.B) {
				spec := &pgload.Spec{DSN: dsn, Setup: setup, Connection: conn, Statements: []pgload.Statement{cases[name]}}
				setup = nil
				benchWorkers(b, pgGroup(spec, 8))
			})
		}
	}
}

func benchWorkers(b *testing.B, g *plan.Group) {
	r := newRunner(b, g)
	// One cancellable context for all workers, as the engine's for a
	// step's operations.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := r.Prepare(ctx, &runners.StepEnv{Group: g, Load: g.Load}); err != nil {
		b.Fatal(err)
	}
	var workers []runners.Worker
	for i := range g.Load.Workers() {
		w, err := r.NewWorker(i, &runners.Recorder{})
		if err != nil {
			b.Fatal(err)
		}
		workers = append(workers, w)
	}
	defer loop.CloseWorkers(workers)
	var next, errs atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	cpu0 := cpuTime()
	for _, w := range workers {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if w.Do(ctx).Err != "" {
					errs.Add(1)
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	if errs.Load() > 0 {
		b.Fatalf("%d errors", errs.Load())
	}
}

// BenchmarkEngineSelect1 runs SELECT 1 through the whole engine (a Session
// of 8 workers for 3 s, one step per b.N) and reports the artifact's
// throughput and this process's CPU per operation.
func BenchmarkEngineSelect1(b *testing.B) { benchEngineSelect1(b, "") }

// BenchmarkEngineSelect1PerWorker is BenchmarkEngineSelect1 with
// `connection: per-worker`.
func BenchmarkEngineSelect1PerWorker(b *testing.B) { benchEngineSelect1(b, ", connection: per-worker") }

// BenchmarkEngineSelect1Pipeline is BenchmarkEngineSelect1 with
// `pipeline: 8` (its ops/s and CPU per operation count statements).
func BenchmarkEngineSelect1Pipeline(b *testing.B) { benchEngineSelect1(b, ", pipeline: 8") }

// BenchmarkEngineSelect1Epoll is BenchmarkEngineSelect1 with `client:
// epoll`.
func BenchmarkEngineSelect1Epoll(b *testing.B) { benchEngineSelect1(b, ", client: epoll") }

// BenchmarkEngineSelect1EpollPipeline is BenchmarkEngineSelect1 with
// `client: epoll, pipeline: 8`.
func BenchmarkEngineSelect1EpollPipeline(b *testing.B) {
	benchEngineSelect1(b, ", client: epoll, pipeline: 8")
}

// benchEngineSelect1 runs the engine benchmark with more keys of the
// postgres section (", key: value").
func benchEngineSelect1(b *testing.B, keys string) {
	dsn := os.Getenv("BTPG_BENCH_DSN")
	if dsn == "" {
		dsn = pgtest.Cluster(b).DSN()
	}
	plan := runnertest.ParsePlan(b, testRegistry, `version: 1
groups:
  - id: S1
    runner: postgres
    postgres: {dsn: "`+dsn+`", statements: [{sql: "SELECT 1"}]`+keys+`}
    load: {concurrency: 8}
    duration: 3s
`, nil)
	var ops, rps float64
	cpu0 := cpuTime()
	for range b.N {
		run := engine.NewRun(plan, testRegistry, b.TempDir(), "bench")
		s, err := run.Session(context.Background(), plan.Groups[0])
		if err != nil {
			b.Fatal(err)
		}
		st := runnertest.RunSession(b, context.Background(), s).Steps[0]
		ops += float64(st.Requests)
		rps += st.ThroughputRPS
		run.Close()
	}
	b.ReportMetric(rps/float64(b.N), "ops/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/ops, "cpu-µs/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
