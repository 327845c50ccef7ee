package pgload

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// closeTimeout bounds teardown when the group ends.
const closeTimeout = 30 * time.Second

// runner is the postgres runner of one group.
type runner struct {
	group   *plan.Group
	spec    *Spec
	env     *runners.RunEnv
	stmts   []*statement // the mix's statements, or the flow's steps
	cum     []int        // cumulative weights, for picking
	flow    *flow.Flow   // nil for a mix
	timeout time.Duration

	step []string                     // the step's values of the group's vars, set in Prepare
	seq  *tmpl.Seq                    // $seq: the group's statements, numbered
	live atomic.Pointer[pgxpool.Pool] // the pool workers use, read without the lock

	mu       sync.Mutex // guards what follows; Prepare/Finish/Close are sequential
	dsn      string     // resolved: the embedded cluster's, once started
	pool     *pgxpool.Pool
	poolSize int
	conns    *workerConns // connection: per-worker; nil with a pool
	setUp    bool
	embedded *Embedded     // the group's own cluster, which it stops
	cluster  *groupCluster // the one of a group's loads, shared; nil elsewhere
	joined   bool          // this load's statements run on cluster's
}

var _ runners.Runner = (*runner)(nil)

func newRunner(g *plan.Group, env *runners.RunEnv) (runners.Runner, error) {
	spec := plan.Section[Spec](g, Section)
	if spec == nil {
		return nil, fmt.Errorf("group %s: no postgres section", g.ID)
	}
	r := &runner{group: g, spec: spec, env: env, dsn: spec.DSN, timeout: g.Load.Timeout.D(), seq: tmpl.NewSeq()}
	if spec.DSN == EmbeddedDSN {
		r.cluster = joinGroupCluster(env, r.maxPool())
	}
	var problems []flow.Problem
	if r.flow, problems = spec.compileFlow(); len(problems) > 0 {
		return nil, fmt.Errorf("group %s: %w", g.ID, errors.Join(flowErrors(problems)...))
	}
	stmts, list := spec.sent()
	total := 0
	for i := range stmts {
		st, err := compileStatement(&stmts[i], argScope{vars: varsBefore(r.flow, i), inFlow: r.flow != nil, step: g.VarNames()})
		if err != nil {
			return nil, fmt.Errorf("group %s: %s[%d]: %w", g.ID, list, i, err)
		}
		total += st.weight
		r.stmts = append(r.stmts, st)
		r.cum = append(r.cum, total)
	}
	if total == 0 {
		return nil, fmt.Errorf("group %s: no statement has a weight", g.ID)
	}
	if spec.Epoll() {
		return newEpollRunner(r)
	}
	return r, nil
}

// Prepare starts the embedded cluster if asked, sizes and warms the pool,
// The embedded cluster is watched like a target: its exit stops the run.
var _ runners.TargetHandle = (*Embedded)(nil)

// and runs the setup statements before the first step.
func (r *runner) Prepare(ctx context.Context, step *runners.StepEnv) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.startEmbedded(ctx, step); err != nil {
		return err
	}
	r.step = step.StepValues()
	r.seq.Stripe(step.Shard.Index, step.Shard.Count)
	size := r.poolSizeFor(step)
	if r.pool == nil || r.poolSize != size {
		if r.pool != nil {
			r.pool.Close()
			r.pool = nil
			r.live.Store(nil)
		}
		pool, err := newPool(ctx, r.dsn, size)
		if err != nil {
			return err
		}
		r.pool, r.poolSize = pool, size
		r.live.Store(pool)
	}
	if err := warm(ctx, r.pool, size, r.dsn); err != nil {
		return err
	}
	if err := r.openWorkerConns(ctx, step); err != nil {
		return err
	}
	// In a distributed run only shard 0 sets up (before the start time)
	// and so tears down: once for the run, not once per shard.
	if !r.setUp && step.Shard.Index == 0 {
		if err := execAll(ctx, r.pool, "setup", r.spec.Setup); err != nil {
			return err
		}
		r.setUp = true
	}
	return nil
}

// poolSizeFor is the pool's size for step: `pool`, else the workers; with
// a connection per worker, one for setup, verify and teardown.
func (r *runner) poolSizeFor(step *runners.StepEnv) int {
	if r.spec.PerWorker() {
		return 1
	}
	size := r.spec.Pool
	if size <= 0 {
		size = step.Load.Workers()
	}
	return max(size, 1)
}

// openWorkerConns opens a connection for each of the step's workers, with
// `connection: per-worker`.
func (r *runner) openWorkerConns(ctx context.Context, step *runners.StepEnv) error {
	if !r.spec.PerWorker() {
		return nil
	}
	if r.conns == nil {
		c, err := newWorkerConns(r.dsn)
		if err != nil {
			return err
		}
		r.conns = c
	}
	return r.conns.fill(ctx, step.Load.Workers())
}

// startEmbedded starts the group's embedded cluster with its first step,
// for `dsn: embedded`: its own, or the one its group's loads share (the
// load that prepares first starts it, and watches it).
func (r *runner) startEmbedded(ctx context.Context, step *runners.StepEnv) error {
	if r.spec.DSN != EmbeddedDSN || r.embedded != nil || r.joined {
		return nil
	}
	var e *Embedded
	var err error
	started := true
	if r.cluster != nil {
		e, started, err = r.cluster.start(ctx)
		r.joined = err == nil
	} else {
		e, err = StartEmbedded(ctx, EmbeddedOptions{MaxConnections: r.maxPool() + 20})
		r.embedded = e
	}
	if err != nil {
		return fmt.Errorf("group %s: starting the embedded postgres: %w", r.group.ID, err)
	}
	r.dsn = e.DSN()
	if !started {
		return nil // the load that started it watches it
	}
	step.Event(artifacts.EventNote, fmt.Sprintf("embedded postgres: pid %d, port %d, folder %s", e.PID(), e.Port(), e.Dir()))
	step.WatchTarget("postgres (embedded)", e)
	if r.env != nil && r.env.Cleanup != nil {
		r.env.Cleanup(func() { _ = e.Stop() })
	}
	return nil
}

// maxPool is the largest pool any step of the group may open, so an
// embedded cluster allows enough connections for a sweep's last step.
func (r *runner) maxPool() int {
	if r.spec.Pool > 0 {
		return r.spec.Pool
	}
	n := max(r.group.Load.Workers(), 1)
	for _, key := range []string{"concurrency", "max_in_flight"} {
		for _, v := range r.group.Sweep[key] {
			n = max(n, int(v))
		}
	}
	return n
}

// newPool opens a pool of exactly size connections that stay open for the
// whole run: pgxpool's defaults (max(4, NumCPU), lazy, recycled hourly)
// would measure connects.
func newPool(ctx context.Context, dsn string, size int) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parsing the dsn %s: %w", plan.RedactURLs(dsn), redactErr(err, dsn))
	}
	cfg.MaxConns, cfg.MinConns = int32(size), int32(size)
	cfg.MaxConnLifetime, cfg.MaxConnIdleTime = 24*time.Hour, 24*time.Hour
	cfg.HealthCheckPeriod = time.Minute
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", plan.RedactURLs(dsn), redactErr(err, dsn))
	}
	return pool, nil
}

// warm opens all size connections at once, so the first operations of the
// step do not pay for connects.
func warm(ctx context.Context, pool *pgxpool.Pool, size int, dsn string) error {
	acquire := func() (*pgxpool.Conn, error) { return pool.Acquire(ctx) }
	if err := openAll(size, acquire, (*pgxpool.Conn).Release); err != nil {
		return fmt.Errorf("opening %d connections to %s: %w", size, plan.RedactURLs(dsn), redactErr(err, dsn))
	}
	return nil
}

// openAll calls open n times at once, hands each opened connection to
// keep, and returns the failures joined.
func openAll[T any](n int, open func() (T, error), keep func(T)) error {
	opened := make([]T, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { opened[i], errs[i] = open() })
	}
	wg.Wait()
	for i, c := range opened {
		if errs[i] == nil {
			keep(c)
		}
	}
	return errors.Join(errs...)
}

func execAll(ctx context.Context, pool *pgxpool.Pool, what string, sqls []string) error {
	for i, sql := range sqls {
		// Simple protocol: setup may hold several statements in one string.
		if _, err := pool.Exec(ctx, sql, pgx.QueryExecModeSimpleProtocol); err != nil {
			return fmt.Errorf("%s[%d] %q: %w", what, i, abbreviate(sql), err)
		}
	}
	return nil
}

// NewWorker returns a worker with its own random source (and, with
// `connection: per-worker`, its own connection); in a flow, a virtual
// user with its own variables.
func (r *runner) NewWorker(id int, rec *runners.Recorder) (runners.Worker, error) {
	var own *pgx.Conn
	if r.conns != nil {
		var err error
		if own, err = r.conns.take(); err != nil {
			return nil, err
		}
	}
	switch {
	case r.flow != nil:
		return r.newFlowWorker(id, rec, own), nil
	case r.spec.Pipeline > 1:
		return newPipeWorker(newWorker(r, id, rec, own), r.spec.Pipeline), nil
	}
	return newWorker(r, id, rec, own), nil
}

// Finish runs the verify queries of the postgres section and of the
// group's own `verify:` list; each becomes a check of the step. A shard
// runs none: they run once, on the merge (VerifyMerged).
func (r *runner) Finish(ctx context.Context, step *runners.StepEnv, sum runners.Summary) (runners.Findings, error) {
	if step.Shard.Active() {
		return runners.Findings{}, nil
	}
	r.mu.Lock()
	pool, dsn := r.pool, r.dsn
	r.mu.Unlock()
	list := append([]Verify(nil), r.spec.Verify...)
	if own := plan.Section[[]Verify](r.group, VerifySection); own != nil {
		list = append(list, *own...)
	}
	env := verifyEnv{pool: pool, dsn: dsn, probes: r.group.Probes, embeddedDSN: r.EmbeddedDSN()}
	checks, _ := verifyAll(ctx, list, env, sum) // a failed query is a failed check
	return runners.Findings{Checks: checks}, nil
}

// Close runs the teardown statements, closes the pool and stops the
// embedded cluster. Teardown runs once when the group ends, not after each
// step, so the steps of a sweep share what setup made.
func (r *runner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	if r.pool != nil {
		if r.setUp {
			ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
			errs = append(errs, execAll(ctx, r.pool, "teardown", r.spec.Teardown))
			cancel()
		}
		r.pool.Close()
		r.pool = nil
		r.live.Store(nil)
	}
	if r.conns != nil {
		r.conns.close()
	}
	if r.embedded != nil {
		errs = append(errs, r.embedded.Stop())
	}
	if r.cluster != nil {
		errs = append(errs, r.cluster.leave())
	}
	return errors.Join(errs...)
}

var _ runners.DSNSource = (*runner)(nil)

// DSN implements runners.DSNSource: the database the group's statements
// run on, the embedded cluster's once it is started; a sql action's
// `dsn: embedded` reaches it.
func (r *runner) DSN() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dsn
}
