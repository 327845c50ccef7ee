// Package httpload is benchtui's HTTP runner: a weighted mix of requests
// over HTTP/1.1 keep-alive connections (pooled to the number of workers),
// fresh connections, HTTP/2 over TLS, or h2c.
package httpload

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// Spec is the `http:` section of a group.
type Spec struct {
	// Requests is a weighted mix: each operation sends one of them.
	Requests []Request `yaml:"requests"`
	// Flow, instead of Requests, is a sequence each worker (a virtual
	// user) sends in order per iteration, carrying captured values.
	Flow []Request `yaml:"flow"`
	// Connection is "keep-alive" (default) or "fresh" (a new connection per request).
	Connection string `yaml:"connection"`
	// Protocol is "http1" (default), "h2" (HTTP/2 over TLS) or "h2c".
	Protocol string `yaml:"protocol"`
	// Timeout bounds each request (default 10s).
	Timeout            plan.Duration `yaml:"timeout"`
	InsecureSkipVerify bool          `yaml:"insecure_skip_verify"`
	// Client is "auto" (default: the lean HTTP/1.1 client for plain http://
	// requests, net/http otherwise), "net/http", or "epoll" (Linux: the
	// lean client driven by event loops; epoll.go).
	Client string `yaml:"client"`
	// Pipeline, with client: epoll, keeps up to this many requests out on
	// each connection (HTTP/1.1 pipelining; default 1: none). Each is
	// measured from its own send; replies are matched in order.
	Pipeline int `yaml:"pipeline"`
}

// Request is one entry of the weighted request mix.
type Request struct {
	Name         string            `yaml:"name"`
	Method       string            `yaml:"method"`
	URL          string            `yaml:"url,required"`
	Headers      map[string]string `yaml:"headers"`
	Body         string            `yaml:"body"`
	Weight       int               `yaml:"weight"`
	ExpectStatus []int             `yaml:"expect_status"`
	// Capture, Once and Think are for flow steps (package flow).
	Capture map[string]flow.Capture `yaml:"capture"`
	Once    bool                    `yaml:"once"`
	Think   plan.Duration           `yaml:"think"`
	// Renew, on a once step, says when its session is opened again.
	Renew *flow.Renew `yaml:"renew"`
	// Assert are conditions the reply must meet (a JSON field's value, a
	// header, a pattern in the body); Tally counts a pattern's matches in
	// each reply into a counter of the step, by its name (checks.go).
	Assert []flow.Assert     `yaml:"assert"`
	Tally  map[string]string `yaml:"tally"`
}

// DefaultTimeout bounds a request when the plan sets none.
const DefaultTimeout = 10 * time.Second

// Section is the plan key of the HTTP section.
const Section = "http"

// NewSpec returns an empty section for the plan decoder.
func NewSpec() any { return &Spec{} }

// Kind is `runner: http`: the group's request mix, driven by the engine's
// closed or open loop.
func Kind() runners.Kind {
	return runners.Kind{Name: "http", Sections: map[string]func() any{Section: NewSpec}, Validate: validate, New: New, Shardable: shardable, Counters: counters}
}

// counters are those of a group whose flow renews a session
// (flow.Counters) and its requests' tallies, written at 0 when none
// happened.
func counters(g *plan.Group) []string {
	if spec := plan.Section[Spec](g, Section); spec != nil {
		reqs, _ := spec.sent()
		return FlowCounters(reqs)
	}
	return nil
}

// FlowCounters are the counters of a flow of steps (or a mix of
// requests): flow.Counters when one of them renews, and their tallies'.
func FlowCounters(steps []Request) []string {
	names := tallyCounters(steps)
	if !slices.ContainsFunc(steps, func(r Request) bool { return r.Renew != nil }) {
		return names
	}
	return append(flow.Counters(), names...)
}

func validate(g *plan.Group) []error {
	spec := plan.Section[Spec](g, Section)
	if spec == nil {
		return []error{plan.Errorf(g.Pos, "group "+g.ID+": http", "missing (required for runner http)")}
	}
	key := "group " + g.ID + ": http"
	errs := append(g.LoopProblems(), spec.Validate(g.SectionPos[Section], key)...)
	errs = append(errs, spec.FlowProblems(g, g.SectionPos[Section], key)...)
	errs = append(errs, spec.CheckProblems(g, g.SectionPos[Section], key)...)
	errs = append(errs, epollProblems(g, spec, g.SectionPos[Section], key)...)
	return append(errs, spec.TemplateProblems(g, g.SectionPos[Section], key)...)
}

// Validate reports problems of the section; pos is where it starts.
func (s *Spec) Validate(pos plan.Pos, key string) []error {
	var errs []error
	switch {
	case len(s.Requests) == 0 && len(s.Flow) == 0:
		errs = append(errs, plan.Errorf(pos, key+".requests", "needs at least one request (or a flow: of steps)"))
	case len(s.Requests) > 0 && len(s.Flow) > 0:
		errs = append(errs, plan.Errorf(pos, key+".flow", "give requests (a weighted mix) or flow (a sequence), not both"))
	}
	reqs, list := s.sent()
	for i, r := range reqs {
		k := fmt.Sprintf("%s.%s[%d]", key, list, i)
		if u, err := url.Parse(tmpl.Skeleton(r.URL)); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, plan.Errorf(pos, k+".url", "want an http:// or https:// URL, got %q", plan.RedactURLs(r.URL)))
		} else if tmpl.HostTemplated(r.URL) {
			errs = append(errs, plan.Errorf(pos, k+".url", "%s", tmpl.HostTemplatedProblem))
		}
		if r.Weight < 0 {
			errs = append(errs, plan.Errorf(pos, k+".weight", "must not be negative"))
		}
		if p := plan.NameProblem(r.Name); p != "" {
			errs = append(errs, plan.Errorf(pos, k+".name", "%s", p))
		}
		errs = append(errs, r.placeProblems(pos, k, list)...)
		for _, p := range plan.RequestProblems(r.Method, tmpl.Skeletons(r.Headers)) {
			errs = append(errs, plan.Errorf(pos, k, "%s", p))
		}
	}
	if !slices.Contains([]string{"", "keep-alive", "fresh"}, s.Connection) {
		errs = append(errs, plan.Errorf(pos, key+".connection", "want keep-alive or fresh, got %q", s.Connection))
	}
	if !slices.Contains([]string{"", "auto", "net/http", clientEpoll}, s.Client) {
		errs = append(errs, plan.Errorf(pos, key+".client", "want auto, net/http or epoll, got %q", s.Client))
	}
	if !slices.Contains([]string{"", "http1", "h2", "h2c"}, s.Protocol) {
		errs = append(errs, plan.Errorf(pos, key+".protocol", "want http1, h2 or h2c, got %q", s.Protocol))
	}
	return errs
}

// Runner sends the group's request mix.
type Runner struct {
	spec   *Spec
	client *http.Client
	reqs   []Request     // the mix's requests, or the flow's steps
	flow   *flow.Flow    // nil for a mix
	mix    []int         // request index per weight unit
	lean   []leanRequest // the requests serialized, when the lean client is used
	// tpls holds each request's templates (nil for one without); states
	// tells whether workers keep a template state: some request has
	// templates or the group has a data file, whose rows data hands out.
	tpls   []*reqTemplate
	states bool
	checks []*flow.Checks // each request's assert and tally; nil for one without
	seq    *tmpl.Seq      // {{seq}}: the group's requests (a flow's iterations), numbered
	data   *tmpl.Source
	step   []string // the step's values of the group's vars, set in Prepare
	err    error    // a template that did not compile, returned by Prepare
	// slowPath is why client: auto took the goroutine client, not the
	// event loops; said once, as the first step prepares ("" when it did
	// not, or the plan chose its client).
	slowPath string
}

// New builds the HTTP runner of a group: with client: auto, the event
// loops wherever the group allows them (on Linux, a mix of plain http://
// requests without templates, assertions, data or iterations, in a run
// that is not sharded), else the goroutine client, which says why.
func New(g *plan.Group, env *runners.RunEnv) (runners.Runner, error) {
	spec := plan.Section[Spec](g, Section)
	if spec == nil {
		return nil, fmt.Errorf("group %s has no http section", g.ID)
	}
	r := newRunner(spec, g)
	if r.err != nil {
		return nil, fmt.Errorf("group %s: %w", g.ID, r.err)
	}
	if spec.Client == clientEpoll {
		return newEpollRunner(r)
	}
	if autoClient(spec) {
		var sh runners.Shard
		if env != nil {
			sh = env.Shard
		}
		why := autoRefusals(g, spec, sh)
		if len(why) == 0 {
			return newEpollRunner(r)
		}
		r.slowPath = "http.client auto: the goroutine client, not the event loops: " + strings.Join(why, "; ")
	}
	return r, nil
}

// NewRunner builds a runner for spec, whose templates read no data file;
// its client is sized in Prepare.
func NewRunner(spec *Spec) *Runner { return newRunner(spec, nil) }

// newRunner builds a runner for spec; g (nil: none) gives its data file.
func newRunner(spec *Spec, g *plan.Group) *Runner {
	r := &Runner{spec: spec, seq: tmpl.NewSeq()}
	r.reqs, _ = spec.sent()
	if len(spec.Flow) > 0 {
		var problems []flow.Problem
		r.flow, problems = flow.Compile(flowDefs(spec.Flow), columns(g))
		for _, p := range problems {
			r.err = errors.Join(r.err, p)
		}
	}
	r.compile(g)
	if spec.Client != "net/http" && leanEligible(spec) {
		for i := range r.reqs {
			lr, err := serialize(&r.reqs[i], r.tpls[i], spec.Connection != "fresh")
			if err != nil {
				r.lean = nil
				break
			}
			r.lean = append(r.lean, lr)
		}
	}
	for i, req := range spec.Requests { // a flow has no mix
		w := req.Weight
		if w == 0 {
			w = 1
		}
		for range w {
			r.mix = append(r.mix, i)
		}
	}
	return r
}

// compile compiles every request's templates and opens g's data file.
func (r *Runner) compile(g *plan.Group) {
	r.tpls = make([]*reqTemplate, len(r.reqs))
	for i := range r.reqs {
		t, err := compileRequest(&r.reqs[i], g, r.varsBefore(i))
		r.tpls[i], r.err = t, errors.Join(r.err, err)
		r.states = r.states || t != nil || r.flow != nil
	}
	var problems []flow.Problem
	r.checks, problems = compileChecks(r.reqs, r.flow, g)
	for _, p := range problems {
		r.err = errors.Join(r.err, p)
	}
	r.states = r.states || slices.ContainsFunc(r.checks, (*flow.Checks).Templated)
	if g != nil && g.Table != nil {
		r.data = tmpl.NewSource(g.Table, g.Data.Mode)
		r.states = true
	}
}

// Prepare builds a client whose idle pool holds a connection per worker:
// Go's default of 2 idle connections per host would measure reconnects.
func (r *Runner) Prepare(_ context.Context, step *runners.StepEnv) error {
	if r.err != nil {
		return r.err
	}
	if r.client != nil {
		r.client.CloseIdleConnections()
	}
	r.client = newClient(r.spec, max(step.Load.Workers(), 1), r.timeout())
	r.step = step.StepValues()
	if r.slowPath != "" {
		step.Event(artifacts.EventNote, r.slowPath)
		r.slowPath = ""
	}
	r.seq.Stripe(step.Shard.Index, step.Shard.Count)
	return nil
}

func newClient(s *Spec, workers int, timeout time.Duration) *http.Client {
	t := &http.Transport{
		Proxy:               nil,
		DialContext:         runners.DialFunc(&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}),
		MaxIdleConns:        workers * 2,
		MaxIdleConnsPerHost: workers * 2,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		DisableKeepAlives:   s.Connection == "fresh",
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: s.InsecureSkipVerify}, // #nosec G402 -- opt-in for loopback tests
	}
	switch s.Protocol {
	case "h2":
		t.ForceAttemptHTTP2 = true
	case "h2c":
		p := new(http.Protocols)
		p.SetUnencryptedHTTP2(true)
		t.Protocols = p
	default:
		t.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{} // HTTP/1.1 only
	}
	return &http.Client{Transport: t, Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// NewWorker returns a worker with its own random source for the mix and,
// with the lean client, its own connection.
func (r *Runner) NewWorker(id int, rec *runners.Recorder) (runners.Worker, error) {
	rnd := rand.New(rand.NewPCG(uint64(id)+1, uint64(time.Now().UnixNano())))
	var st *tmpl.State
	if r.states {
		st = tmpl.NewState(r.data, r.seq)
		st.SetStep(r.step)
	}
	if r.flow != nil {
		return r.newFlowWorker(st, rec), nil
	}
	if r.lean != nil {
		return &leanWorker{r: r, rnd: rnd, st: st, conn: newLeanConn(r.timeout()), replyChecker: replyChecker{rec: rec}}, nil
	}
	return &worker{r: r, rnd: rnd, st: st, replyChecker: replyChecker{rec: rec}}, nil
}

func (r *Runner) timeout() time.Duration {
	if t := r.spec.Timeout.D(); t > 0 {
		return t
	}
	return DefaultTimeout
}

// Finish has nothing to verify for plain HTTP.
func (r *Runner) Finish(context.Context, *runners.StepEnv, runners.Summary) (runners.Findings, error) {
	return runners.Findings{}, nil
}

// Close drops the client's idle connections.
func (r *Runner) Close() error {
	if r.client != nil {
		r.client.CloseIdleConnections()
	}
	return nil
}

func method(req *Request) string {
	if req.Method == "" {
		return http.MethodGet
	}
	return strings.ToUpper(req.Method)
}
