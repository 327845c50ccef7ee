package pgload_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/loop"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// TestMain runs 4 tests at once: the parallel ones start clusters of
// their own and mostly wait on them; the tests on the shared test
// database stay serial.
func TestMain(m *testing.M) {
	testbin.DefaultParallel(4)
	code := pgtest.Run(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	testbin.Exit(code)
}

// pgGroup is a postgres group of spec with a closed loop of workers.
func pgGroup(spec *pgload.Spec, workers int) *plan.Group {
	return &plan.Group{
		ID: "PGT", Runner: "postgres", Load: plan.Load{Concurrency: workers}, Duration: plan.Duration{Duration: time.Second},
		Sections: map[string]any{"postgres": spec}, SectionPos: map[string]plan.Pos{},
	}
}

// newRunner validates g and builds its runner, closed when the test ends.
func newRunner(t testing.TB, g *plan.Group) runners.Runner {
	t.Helper()
	kind := pgload.Kind()
	if errs := kind.Validate(g); len(errs) > 0 {
		t.Fatalf("validate: %v", errs)
	}
	r, err := kind.New(g, &runners.RunEnv{Cleanup: t.Cleanup})
	if err != nil {
		t.Fatalf("new: %v", err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return r
}

// drive runs exactly total operations spread over the group's workers (a
// closed loop, as the engine's) between Prepare and Finish, and returns the
// step's figures.
func drive(t *testing.T, r runners.Runner, g *plan.Group, total int) *artifacts.Step {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	step := &runners.StepEnv{Group: g, Load: g.Load}
	if err := r.Prepare(ctx, step); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	res := &artifacts.Step{ErrorKinds: map[string]int64{}}
	var mu sync.Mutex
	var next atomic.Int64
	var wg sync.WaitGroup
	var workers []runners.Worker
	for i := range g.Load.Workers() {
		w, err := r.NewWorker(i, &runners.Recorder{})
		if err != nil {
			t.Fatalf("worker: %v", err)
		}
		workers = append(workers, w)
		wg.Go(func() {
			for next.Add(1) <= int64(total) {
				out := w.Do(ctx)
				mu.Lock()
				res.Requests++
				if out.Err != "" {
					res.Errors++
					res.ErrorKinds[out.Err]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := loop.CloseWorkers(workers); err != nil { // as the engine does, before Finish
		t.Fatalf("closing workers: %v", err)
	}
	found, err := r.Finish(ctx, step, runners.Summary{Requests: res.Requests, Errors: res.Errors})
	if err != nil {
		t.Fatalf("finish: %v", err)
	}
	res.Checks = append(res.Checks, found.Checks...)
	return res
}

// query returns the first value of sql on dsn.
func query[T any](t *testing.T, dsn, sql string) T {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v T
	if err := conn.QueryRow(ctx, sql).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// checks indexes a step's checks by name.
func checks(res *artifacts.Step) map[string]artifacts.Check {
	m := map[string]artifacts.Check{}
	for _, c := range res.Checks {
		m[c.Name] = c
	}
	return m
}

// parsePG parses a plan of one postgres group PG, two workers for 1 s,
// whose sections (from line 7 on) are given, and returns its errors.
func parsePG(sections string) error {
	_, err := plan.ParsePlan("plan.yaml", []byte(`version: 1
groups:
  - id: PG
    runner: postgres
    load: {concurrency: 2}
    duration: 1s
`+sections), func(string) (string, bool) { return "", false }, testRegistry)
	return err
}
