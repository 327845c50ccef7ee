package wsload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// defaultTimeout bounds an operation (and a connect) when load.timeout
// does not.
const defaultTimeout = 10 * time.Second

// runner is the WebSocket runner of one group.
type runner struct {
	group *plan.Group
	spec  *Spec
	d     *dialer
	msgs  []*message // the mix's messages, or the flow's steps
	cum   []int      // cumulative weights, for picking
	flow  *flow.Flow // nil for a mix
	data  *tmpl.Source
	seq   *tmpl.Seq // {{seq}}: the group's operations (a subscriber's connects), numbered

	mu      sync.Mutex // guards what follows
	timeout time.Duration
	step    []string // the step's values of the group's vars

	closing sync.WaitGroup // workers' connections closing
}

var _ runners.Runner = (*runner)(nil)

// message is a compiled message of the mix or step of the flow.
type message struct {
	name    string
	weight  int
	typ     websocket.MessageType
	body    *tmpl.Template
	match   *regexp.Regexp // nil: any message
	count   int            // messages awaited; 0 with noReply
	noReply bool
}

func newKind(g *plan.Group, _ *runners.RunEnv) (runners.Runner, error) {
	s := specOf(g)
	if s == nil {
		return nil, fmt.Errorf("group %s: no websocket section", g.ID)
	}
	if err := s.err(); err != nil {
		return nil, fmt.Errorf("group %s: %w", g.ID, err)
	}
	c, err := plan.CompileFields(g, map[string]string{"url": s.URL}, s.Headers)
	if err != nil {
		return nil, fmt.Errorf("group %s: websocket: %w", g.ID, err)
	}
	d, err := newDialer(s, c)
	if err != nil {
		return nil, fmt.Errorf("group %s: websocket: %w", g.ID, err)
	}
	r := &runner{group: g, spec: s, d: d, seq: tmpl.NewSeq(), timeout: defaultTimeout}
	if g.Table != nil {
		r.data = tmpl.NewSource(g.Table, g.Data.Mode)
	}
	r.flow = s.compileFlow()
	msgs, list := s.sent()
	total := 0
	for i := range msgs {
		m, err := compileMessage(g, &msgs[i], r.flow.VarsBefore(i))
		if err != nil {
			return nil, fmt.Errorf("group %s: websocket.%s[%d]: %w", g.ID, list, i, err)
		}
		total += m.weight
		r.msgs, r.cum = append(r.msgs, m), append(r.cum, total)
	}
	if s.Subscribe != nil {
		return newSubRunner(r)
	}
	return r, nil
}

func compileMessage(g *plan.Group, m *Message, vars []string) (*message, error) {
	out := &message{name: m.Name, weight: max(m.Weight, 1), typ: websocket.MessageText, count: 1, noReply: m.NoReply}
	if m.Binary != "" {
		out.typ = websocket.MessageBinary
	}
	t, err := g.TemplateVars(plan.Pos{}, m.kind(), m.body(), vars)
	if err != nil {
		return nil, err
	}
	out.body = t
	if a := m.Await; a != nil {
		out.count = max(a.Count, 1)
		if a.Match != "" {
			out.match = regexp.MustCompile(a.Match) // validated
		}
	}
	if m.NoReply {
		out.count = 0
	}
	return out, nil
}

// Prepare takes the step's timeout, vars and shard.
func (r *runner) Prepare(_ context.Context, step *runners.StepEnv) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d := step.Load.Timeout.D(); d > 0 {
		r.timeout = d
	}
	if step.Group != nil {
		r.step = step.StepValues()
	}
	r.seq.Stripe(step.Shard.Index, step.Shard.Count)
	return nil
}

// NewWorker returns a worker with its own connection (opened at its first
// operation) and template state: a mix's or a flow's virtual user.
func (r *runner) NewWorker(id int, rec *runners.Recorder) (runners.Worker, error) {
	r.mu.Lock()
	timeout, step := r.timeout, r.step
	r.mu.Unlock()
	st := tmpl.NewState(r.data, r.seq)
	st.SetStep(step)
	w := &worker{r: r, id: id, timeout: timeout, rec: rec, st: st, rnd: rand.New(rand.NewPCG(uint64(id)+1, rand.Uint64()))}
	if r.flow != nil {
		return newFlowWorker(w), nil
	}
	return w, nil
}

// Finish waits for the step's connections to close.
func (r *runner) Finish(context.Context, *runners.StepEnv, runners.Summary) (runners.Findings, error) {
	r.closing.Wait()
	return runners.Findings{}, nil
}

// Close waits for every connection to close.
func (r *runner) Close() error {
	r.closing.Wait()
	r.d.close()
	return nil
}

// pick draws a message of the mix by weight.
func (r *runner) pick(rnd *rand.Rand) *message { return r.msgs[runners.PickWeighted(rnd, r.cum)] }

// errNoDriver is NewWorker of a subscribe group.
var errNoDriver = errors.New("a websocket subscribe group is a Driver: it has no workers")
