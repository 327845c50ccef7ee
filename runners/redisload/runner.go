package redisload

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// defaultTimeout bounds an operation when load.timeout does not.
const defaultTimeout = 10 * time.Second

// runner is the Redis runner of one group.
type runner struct {
	group    *plan.Group
	spec     *Spec
	env      *runners.RunEnv
	cmds     []*command // the mix's commands, or the flow's steps
	cum      []int      // cumulative weights, for picking
	flow     *flow.Flow // nil for a mix
	data     *tmpl.Source
	seq      *tmpl.Seq // {{seq}}: the group's operations, numbered
	maxReply int64

	mu       sync.Mutex // guards what follows; Prepare, Finish and Close are sequential
	timeout  time.Duration
	step     []string // the step's values of the group's vars
	client   rueidis.Client
	addr     string // resolved: the embedded server's, once started
	embedded *Embedded
	setUp    bool
}

var _ runners.Runner = (*runner)(nil)

func newKind(g *plan.Group, env *runners.RunEnv) (runners.Runner, error) {
	s := specOf(g)
	if s == nil {
		return nil, fmt.Errorf("group %s: no redis section", g.ID)
	}
	if err := flow.JoinProblems(Section, s.problems()); err != nil {
		return nil, fmt.Errorf("group %s: %w", g.ID, err)
	}
	r := &runner{group: g, spec: s, env: env, seq: tmpl.NewSeq(), addr: s.Addr, maxReply: s.MaxReplyBytes, timeout: defaultTimeout}
	if r.maxReply == 0 {
		r.maxReply = DefaultMaxReplyBytes
	}
	if g.Table != nil {
		r.data = tmpl.NewSource(g.Table, g.Data.Mode)
	}
	r.flow = flow.Compiled(flowDefs(s.Flow), nil)
	cmds, list := s.sent()
	total := 0
	for i := range cmds {
		c, err := compileCommand(g, &cmds[i], r.flow.VarsBefore(i))
		if err != nil {
			return nil, fmt.Errorf("group %s: redis.%s[%d]: %w", g.ID, list, i, err)
		}
		total += c.weight
		r.cmds, r.cum = append(r.cmds, c), append(r.cum, total)
	}
	if s.Subscribe != nil {
		return &subRunner{runner: r}, nil
	}
	return r, nil
}

// The embedded server is watched like a target: its exit stops the run.
var _ runners.TargetHandle = (*Embedded)(nil)

// Prepare starts the embedded server if asked, connects, and runs the
// setup commands before the first step.
func (r *runner) Prepare(ctx context.Context, step *runners.StepEnv) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d := step.Load.Timeout.D(); d > 0 {
		r.timeout = d
	}
	if err := r.startEmbedded(ctx, step); err != nil {
		return err
	}
	if step.Group != nil {
		r.step = step.StepValues()
	}
	r.seq.Stripe(step.Shard.Index, step.Shard.Count)
	if r.client == nil {
		c, err := r.connect()
		if err != nil {
			return err
		}
		r.client = c
	}
	if !r.setUp && step.Shard.Index == 0 {
		if err := r.runSetup(ctx); err != nil {
			return err
		}
		r.setUp = true
	}
	return nil
}

// startEmbedded starts the group's embedded server with its first step.
func (r *runner) startEmbedded(ctx context.Context, step *runners.StepEnv) error {
	if r.spec.Addr != EmbeddedAddr || r.embedded != nil {
		return nil
	}
	e, err := StartEmbedded(ctx)
	if err != nil {
		return fmt.Errorf("group %s: starting the embedded redis: %w", r.group.ID, err)
	}
	r.embedded, r.addr = e, e.Addr()
	step.Event(artifacts.EventNote, fmt.Sprintf("embedded redis: pid %d, port %d, folder %s", e.PID(), e.Port(), e.Dir()))
	step.WatchTarget("redis (embedded)", e)
	if r.env != nil && r.env.Cleanup != nil {
		r.env.Cleanup(func() { _ = e.Stop() })
	}
	return nil
}

// connect makes the client: one command sent once (no retries, no
// client-side cache), each connection read through a guard.
func (r *runner) connect() (rueidis.Client, error) {
	maxReply := r.maxReply
	opt := rueidis.ClientOption{
		InitAddress: []string{r.addr}, Username: r.spec.Username, Password: r.spec.Password,
		SelectDB: r.spec.DB, ClientName: "benchtui", ClientSetInfo: rueidis.DisableClientSetInfo,
		DisableCache: true, DisableRetry: true, ForceSingleClient: true,
		ConnWriteTimeout: r.timeout, Dialer: net.Dialer{Timeout: r.timeout},
		BlockingPoolSize: plan.MaxWorkers,
		DialCtxFn: func(ctx context.Context, addr string, d *net.Dialer, _ *tls.Config) (net.Conn, error) {
			c, err := runners.Dial(ctx, d, "tcp", addr)
			if err != nil {
				return nil, err
			}
			return newGuardConn(c, maxReply), nil
		},
	}
	c, err := rueidis.NewClient(opt)
	if err != nil {
		return nil, fmt.Errorf("connecting to redis at %s: %w", r.addr, err)
	}
	return c, nil
}

// runSetup runs the setup commands in order; the first failure stops.
func (r *runner) runSetup(ctx context.Context) error {
	for i, args := range r.spec.Setup {
		ctx, cancel := context.WithTimeout(ctx, r.timeout)
		err := r.client.Do(ctx, r.client.B().Arbitrary(args...).Build()).Error()
		cancel()
		if err != nil && !rueidis.IsRedisNil(err) {
			return fmt.Errorf("group %s: redis.setup[%d] %s: %w", r.group.ID, i, args[0], err)
		}
	}
	return nil
}

// NewWorker returns a worker with its own template state: a mix's, a
// pipeline's or a flow's virtual user.
func (r *runner) NewWorker(id int, rec *runners.Recorder) (runners.Worker, error) {
	r.mu.Lock()
	client, timeout, step := r.client, r.timeout, r.step
	r.mu.Unlock()
	if client == nil {
		return nil, errors.New("redis runner used before Prepare")
	}
	st := tmpl.NewState(r.data, r.seq)
	st.SetStep(step)
	w := &worker{r: r, client: client, timeout: timeout, rec: rec, st: st, rnd: newRand(id)}
	switch {
	case r.flow != nil:
		return newFlowWorker(w), nil
	case r.spec.Pipeline > 1:
		return newPipeWorker(w, r.spec.Pipeline), nil
	}
	return w, nil
}

// Finish has nothing to add: counters are counted as replies come.
func (r *runner) Finish(context.Context, *runners.StepEnv, runners.Summary) (runners.Findings, error) {
	return runners.Findings{}, nil
}

// Close closes the client and stops the embedded server.
func (r *runner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.client != nil {
		r.client.Close()
		r.client = nil
	}
	if r.embedded != nil {
		return r.embedded.Stop()
	}
	return nil
}
