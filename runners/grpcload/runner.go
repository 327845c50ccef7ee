package grpcload

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"google.golang.org/grpc"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// defaultTimeout is a call's deadline when load.timeout does not say.
const defaultTimeout = 10 * time.Second

// runner is the gRPC runner of one group.
type runner struct {
	group   *plan.Group
	spec    *Spec
	calls   []*call // the mix's calls, or the flow's steps
	cum     []int   // cumulative weights, for picking
	flow    *flow.Flow
	data    *tmpl.Source
	seq     *tmpl.Seq
	dir     string // the plan file's folder
	shared  int    // shared connections; 0: one per worker
	maxRecv int
	desc    descriptors // the .proto file's; nil: ask the server

	mu      sync.Mutex // guards what follows; Prepare, Finish and Close are sequential
	timeout time.Duration
	step    []string // the step's values of the group's vars
	pool    []*grpc.ClientConn
	bound   bool // the calls have their descriptors
}

var _ runners.Runner = (*runner)(nil)

func newKind(g *plan.Group, env *runners.RunEnv) (runners.Runner, error) {
	s := specOf(g)
	if s == nil {
		return nil, fmt.Errorf("group %s: no grpc section", g.ID)
	}
	if err := flow.JoinProblems(Section, s.problems()); err != nil {
		return nil, fmt.Errorf("group %s: %w", g.ID, err)
	}
	r := &runner{group: g, spec: s, seq: tmpl.NewSeq(), dir: ".", maxRecv: s.MaxRecvBytes, timeout: defaultTimeout}
	r.shared, _ = s.connections()
	if r.maxRecv == 0 {
		r.maxRecv = DefaultMaxRecvBytes
	}
	if env != nil && env.Plan != nil && env.Plan.Path != "" {
		r.dir = filepath.Dir(env.Plan.Path)
	}
	if g.Table != nil {
		r.data = tmpl.NewSource(g.Table, g.Data.Mode)
	}
	r.flow = flow.Compiled(flowDefs(s.Flow), nil)
	calls, list := s.sent()
	total := 0
	for i := range calls {
		c, err := compileCall(g, &calls[i], s.Metadata, r.flow.VarsBefore(i))
		if err != nil {
			return nil, fmt.Errorf("group %s: grpc.%s[%d]: %w", g.ID, list, i, err)
		}
		total += c.weight
		r.calls, r.cum = append(r.calls, c), append(r.cum, total)
	}
	if s.Proto != "" {
		d, err := compileProto(context.Background(), r.dir, s)
		if err != nil {
			return nil, fmt.Errorf("group %s: %w", g.ID, err)
		}
		r.desc = d
		if err := r.bind(d); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// bind finds each call's method in d.
func (r *runner) bind(d descriptors) error {
	for i, c := range r.calls {
		md, err := findMethod(d, c.method)
		if err == nil {
			err = c.bind(md)
		}
		if err != nil {
			return fmt.Errorf("group %s: grpc call %d (%s): %w", r.group.ID, i, c.method, err)
		}
	}
	r.bound = true
	return nil
}

// Prepare connects the shared connections and, without a .proto file,
// reads the methods' descriptors from the server's reflection.
func (r *runner) Prepare(ctx context.Context, step *runners.StepEnv) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d := step.Load.Timeout.D(); d > 0 {
		r.timeout = d
	}
	if step.Group != nil {
		r.step = step.StepValues()
	}
	r.seq.Stripe(step.Shard.Index, step.Shard.Count)
	for len(r.pool) < r.shared {
		c, err := r.connect(ctx)
		if err != nil {
			return err
		}
		r.pool = append(r.pool, c)
	}
	if !r.bound {
		return r.reflect(ctx)
	}
	return nil
}

// reflect binds the calls to the descriptors the server's reflection
// gives, over a shared connection or one of its own.
func (r *runner) reflect(ctx context.Context) error {
	var conn *grpc.ClientConn
	if len(r.pool) > 0 {
		conn = r.pool[0]
	} else {
		c, err := r.connect(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		conn = c
	}
	var services []string
	for _, c := range r.calls {
		svc, _, _ := cutMethod(c.method)
		services = append(services, svc)
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	d, err := reflectServices(ctx, conn, services)
	if err != nil {
		return fmt.Errorf("group %s: grpc at %s (no proto file given): %w", r.group.ID, r.spec.Target, err)
	}
	return r.bind(d)
}

// NewWorker returns a worker with its own template state, on a shared
// connection (by its id) or a connection of its own.
func (r *runner) NewWorker(id int, rec *runners.Recorder) (runners.Worker, error) {
	r.mu.Lock()
	timeout, step, pool := r.timeout, r.step, r.pool
	r.mu.Unlock()
	if !r.bound {
		return nil, errors.New("grpc runner used before Prepare")
	}
	w := &worker{r: r, timeout: timeout, rec: rec, rnd: newRand(id)}
	if len(pool) > 0 {
		w.conn = pool[id%len(pool)]
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		c, err := r.connect(ctx)
		if err != nil {
			return nil, err
		}
		w.conn, w.own = c, true
	}
	w.st = tmpl.NewState(r.data, r.seq)
	w.st.SetStep(step)
	if r.flow != nil {
		return newFlowWorker(w), nil
	}
	return w, nil
}

// Finish has nothing to add: counters are counted as replies come.
func (r *runner) Finish(context.Context, *runners.StepEnv, runners.Summary) (runners.Findings, error) {
	return runners.Findings{}, nil
}

// Close closes the shared connections.
func (r *runner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, c := range r.pool {
		errs = append(errs, c.Close())
	}
	r.pool = nil
	return errors.Join(errs...)
}
