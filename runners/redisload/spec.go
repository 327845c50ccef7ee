// Package redisload is benchtui's Redis runner (`runner: redis`): a
// weighted mix of commands (or a flow of them, with captures), pipelines
// of N commands per operation, Lua scripts by EVALSHA, and pub/sub
// subscribers counting the messages they receive.
//
// The client is github.com/redis/rueidis rather than go-redis: its
// automatic pipelining sends the commands of concurrent workers on a few
// shared connections in batches, so a load tool reaches the server's
// throughput without a connection per worker, and it speaks RESP3 and
// EVALSHA with an EVAL fallback (Lua) itself. Client-side retries and
// caching are off: every operation is sent once, as the plan says.
//
// Each command's arguments are templates (package tmpl: {{seq}}, vars,
// data rows); a reply is read as text (a number in decimal, an array's
// elements one per line) for `expect`, `count` and a flow's captures. A
// Redis error is an error of the kind named by its prefix (err,
// wrongtype, noscript, moved, …). Replies are bounded (max_reply_bytes):
// a server announcing a larger value loses its connection, and the
// operation fails as reply_too_large.
//
// `addr: embedded` starts a throwaway redis-server on a free loopback
// port for the group (StartEmbedded), watched as the group's target and
// stopped when the group ends.
package redisload

import (
	"fmt"
	"maps"
	"net"
	"regexp"
	"slices"
	"strings"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
)

// Section is the plan key of the Redis section.
const Section = "redis"

// EmbeddedAddr is the `addr:` value that starts a throwaway redis-server.
const EmbeddedAddr = "embedded"

// Limits of the section.
const (
	// MaxPipeline bounds `pipeline`, the commands of one operation.
	MaxPipeline = 1000
	// DefaultMaxReplyBytes is the largest reply value taken when the
	// section does not say.
	DefaultMaxReplyBytes = 16 << 20
	// MaxArgs bounds a command's arguments.
	MaxArgs = 1024
)

// CounterMessages counts the messages the subscribers received.
const CounterMessages = "messages"

// Spec is the `redis:` section of a group.
type Spec struct {
	// Addr is the server's host:port, or "embedded".
	Addr string `yaml:"addr,required"`
	// Username and Password authenticate (AUTH); the password is never
	// shown nor written to an artifact.
	Username string `yaml:"username"`
	Password string `yaml:"password"`
	// DB is the database number (SELECT).
	DB int `yaml:"db"`
	// Pipeline, above 1, makes each operation of a worker N commands of
	// the mix sent at once, each recorded by itself.
	Pipeline int `yaml:"pipeline"`
	// MaxReplyBytes bounds one reply (DefaultMaxReplyBytes when 0).
	MaxReplyBytes int64 `yaml:"max_reply_bytes"`
	// Setup are commands run once before the first step (shard 0 only).
	Setup [][]string `yaml:"setup"`
	// Commands are the weighted mix of operations.
	Commands []Command `yaml:"commands"`
	// Flow, instead of Commands, is a sequence each worker (a virtual
	// user) runs in order per iteration, capturing values from replies.
	Flow []Command `yaml:"flow"`
	// Subscribe, instead of both, holds subscribers that count messages.
	Subscribe *Subscribe `yaml:"subscribe"`
}

// Command is one operation: a command and its arguments, or a Lua script.
type Command struct {
	Name string `yaml:"name"`
	// Cmd is the command and its arguments, each a template.
	Cmd []string `yaml:"cmd"`
	// Script, instead of Cmd, is a Lua script sent by EVALSHA (EVAL when
	// the server answers NOSCRIPT), with its Keys and Args (templates).
	Script string   `yaml:"script"`
	Keys   []string `yaml:"keys"`
	Args   []string `yaml:"args"`
	// Weight is the command's share of the mix; 0 means 1.
	Weight int `yaml:"weight"`
	// Expect lists the accepted replies, as text; any other reply is an
	// error of kind unexpected_reply. Empty accepts every reply.
	Expect []string `yaml:"expect"`
	// Count names a counter for each reply text it counts
	// ({allowed: "1", denied: "0"}: counters.allowed, counters.denied).
	Count map[string]string `yaml:"count"`
	// Capture, Once and Think are for flow steps (package flow): a
	// capture reads the reply's text ({regex: …} or {json: …}).
	Capture map[string]flow.Capture `yaml:"capture"`
	Once    bool                    `yaml:"once"`
	Think   plan.Duration           `yaml:"think"`
}

// Subscribe is the `subscribe:` part: subscribers held for the step.
type Subscribe struct {
	// Channels (SUBSCRIBE) and Patterns (PSUBSCRIBE) each subscriber
	// listens to.
	Channels []string `yaml:"channels"`
	Patterns []string `yaml:"patterns"`
	// Subscribers is how many to hold; 0 means the load's concurrency
	// (a `subscribers` sweep value wins over both).
	Subscribers int `yaml:"subscribers"`
}

// Kind is `runner: redis`: commands through rueidis driven by the
// engine's loops, or subscribers the runner holds itself.
func Kind() runners.Kind {
	return runners.Kind{
		Name: "redis", Sections: map[string]func() any{Section: func() any { return &Spec{} }},
		Validate: validate, New: newKind, Shardable: shardable,
		Params: []string{"subscribers"}, Units: units, Counters: counterNames,
	}
}

func specOf(g *plan.Group) *Spec { return plan.Section[Spec](g, Section) }

// counterNames are the counters of a group: its commands' `count` names,
// and the subscribers' messages.
func counterNames(g *plan.Group) []string {
	s := specOf(g)
	if s == nil {
		return nil
	}
	var names []string
	if s.Subscribe != nil {
		names = append(names, CounterMessages)
	}
	cmds, _ := s.sent()
	for _, c := range cmds {
		for name := range c.Count {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// units is how many subscribers a subscribe step holds; other groups hold
// the load's workers, as a kind without Units does.
func units(g *plan.Group, load plan.Load, params map[string]float64) (int, string) {
	if s := specOf(g); s != nil && s.Subscribe != nil {
		return runners.SubscriberUnits(params, s.Subscribe.Subscribers, Section+".subscribe.subscribers", load)
	}
	return runners.WorkerUnits(load)
}

// shardable refuses an embedded server in a distributed run: each shard
// would load a server of its own.
func shardable(g *plan.Group) error {
	s := specOf(g)
	if s == nil || s.Addr != EmbeddedAddr {
		return nil
	}
	return plan.Errorf(g.SectionPos[Section], "group "+g.ID+": redis.addr", "%s gives each shard a server of its own: give the one server's addr", EmbeddedAddr)
}

// sent is what the section sends, a mix or a flow, and its plan key.
func (s *Spec) sent() ([]Command, string) {
	if len(s.Flow) > 0 {
		return s.Flow, "flow"
	}
	return s.Commands, "commands"
}

func validate(g *plan.Group) []error {
	s := specOf(g)
	if s == nil {
		return []error{plan.Errorf(g.Pos, "group "+g.ID+": redis", "missing (required for runner redis)")}
	}
	pos, key := g.SectionPos[Section], "group "+g.ID+": redis"
	bad := func(k, format string, args ...any) error { return plan.Errorf(pos, key+"."+k, format, args...) }
	var errs []error
	if s.Subscribe != nil {
		errs = append(errs, g.NoCounts()...)
	} else {
		errs = append(errs, g.LoopProblems()...)
	}
	for _, p := range s.problems() {
		errs = append(errs, bad(p.Key, "%s", p.Msg))
	}
	errs = append(errs, s.templateProblems(g, pos, key)...)
	if s.Pipeline > 1 && g.Load.OpenLoop() {
		errs = append(errs, bad("pipeline", "needs a closed loop (load.concurrency): an arrival of load.rate is one command"))
	}
	if s.Pipeline > 1 && g.Counted() {
		errs = append(errs, bad("pipeline", "cannot be counted in iterations: each iteration would be %d commands", s.Pipeline))
	}
	for i, v := range g.Sweep["subscribers"] {
		if s.Subscribe == nil {
			errs = append(errs, plan.Errorf(g.Pos, fmt.Sprintf("group %s: sweep.subscribers[%d]", g.ID, i), "is for redis.subscribe"))
			break
		}
		if v < 1 || v > plan.MaxWorkers || v != float64(int(v)) {
			errs = append(errs, plan.Errorf(g.Pos, fmt.Sprintf("group %s: sweep.subscribers[%d]", g.ID, i), "want a whole number from 1 to %d, got %v", plan.MaxWorkers, v))
		}
	}
	return errs
}

// problems are what is wrong with the section by itself, each naming its
// field under the section.
func (s *Spec) problems() []flow.Problem {
	var out []flow.Problem
	bad := func(k, format string, args ...any) {
		out = append(out, flow.Problem{Key: k, Msg: fmt.Sprintf(format, args...)})
	}
	if s.Addr != EmbeddedAddr {
		if _, _, err := net.SplitHostPort(s.Addr); err != nil {
			bad("addr", "want host:port or %q, got %q", EmbeddedAddr, s.Addr)
		}
	}
	if s.DB < 0 {
		bad("db", "must not be negative")
	}
	if s.Pipeline < 0 || s.Pipeline > MaxPipeline {
		bad("pipeline", "want 0 or 1 (no pipeline) up to %d commands per operation, got %d", MaxPipeline, s.Pipeline)
	}
	if s.MaxReplyBytes < 0 {
		bad("max_reply_bytes", "must not be negative")
	}
	for i, c := range s.Setup {
		if len(c) == 0 || len(c) > MaxArgs {
			bad(fmt.Sprintf("setup[%d]", i), "want a command and up to %d arguments", MaxArgs-1)
		}
	}
	out = append(out, s.shapeProblems()...)
	return out
}

// shapeProblems checks what the section sends: exactly one of commands,
// flow and subscribe, and each command.
func (s *Spec) shapeProblems() []flow.Problem {
	var out []flow.Problem
	set := 0
	for _, on := range []bool{len(s.Commands) > 0, len(s.Flow) > 0, s.Subscribe != nil} {
		if on {
			set++
		}
	}
	if set != 1 {
		return []flow.Problem{{Key: "commands", Msg: "want exactly one of commands, flow and subscribe"}}
	}
	if s.Subscribe != nil {
		return s.Subscribe.problems(s.Pipeline)
	}
	cmds, list := s.sent()
	if list == "flow" && s.Pipeline > 1 {
		out = append(out, flow.Problem{Key: "pipeline", Msg: "is for a mix of commands; a flow's steps run one after another"})
	}
	if list == "flow" {
		_, problems := flow.Compile(flowDefs(cmds), nil)
		out = append(out, problems...)
	}
	for i, c := range cmds {
		for _, p := range c.problems(list) {
			out = append(out, flow.Problem{Key: fmt.Sprintf("%s[%d].%s", list, i, p.Key), Msg: p.Msg})
		}
	}
	return out
}

var counterName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

func (c *Command) problems(list string) []flow.Problem {
	var out []flow.Problem
	bad := func(k, format string, args ...any) {
		out = append(out, flow.Problem{Key: k, Msg: fmt.Sprintf(format, args...)})
	}
	switch {
	case len(c.Cmd) > 0 && c.Script != "":
		bad("cmd", "want cmd or script, not both")
	case len(c.Cmd) == 0 && c.Script == "":
		bad("cmd", "want a command (cmd: [SET, k, v]) or a Lua script (script:)")
	case len(c.Cmd) > MaxArgs || len(c.Keys)+len(c.Args) > MaxArgs:
		bad("cmd", "at most %d arguments", MaxArgs)
	case len(c.Cmd) > 0 && (len(c.Keys) > 0 || len(c.Args) > 0):
		bad("keys", "keys and args are a script's; give a command's arguments in cmd")
	case len(c.Cmd) > 0 && strings.TrimSpace(c.Cmd[0]) == "":
		bad("cmd", "the command's name is empty")
	case len(c.Cmd) > 0 && subscribing(c.Cmd[0]):
		bad("cmd", "%s holds the connection: use redis.subscribe", strings.ToUpper(c.Cmd[0]))
	}
	if c.Weight < 0 {
		bad("weight", "must not be negative")
	}
	if list == "flow" && c.Weight != 0 {
		bad("weight", "a flow's steps run in order, each once per iteration; weight is for commands")
	}
	if list == "commands" {
		for field, on := range map[string]bool{"capture": len(c.Capture) > 0, "once": c.Once, "think": c.Think.D() != 0} {
			if on {
				bad(field, "is for the steps of a flow (redis.flow), not the commands of a mix")
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Capture)) {
		if c.Capture[name].Header != "" || c.Capture[name].Column != "" {
			bad("capture."+name, "a Redis reply is text: capture it with regex or json")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Count)) {
		if !counterName.MatchString(name) || name == CounterMessages {
			bad("count."+name, "want a counter name of letters, digits, _ and - (not %q)", CounterMessages)
		}
	}
	return out
}

func (s *Subscribe) problems(pipeline int) []flow.Problem {
	var out []flow.Problem
	bad := func(k, format string, args ...any) {
		out = append(out, flow.Problem{Key: "subscribe." + k, Msg: fmt.Sprintf(format, args...)})
	}
	if len(s.Channels)+len(s.Patterns) == 0 {
		bad("channels", "want at least one channel or pattern")
	}
	if slices.Contains(s.Channels, "") || slices.Contains(s.Patterns, "") {
		bad("channels", "a channel or pattern is empty")
	}
	if s.Subscribers < 0 || s.Subscribers > plan.MaxWorkers {
		bad("subscribers", "want 0 to %d, got %d", plan.MaxWorkers, s.Subscribers)
	}
	if pipeline > 1 {
		out = append(out, flow.Problem{Key: "pipeline", Msg: "is for commands; subscribers send none"})
	}
	return out
}

// subscribing reports whether a command puts the connection in pub/sub
// mode, which a worker's shared connection cannot be.
func subscribing(name string) bool {
	switch strings.ToUpper(strings.TrimSpace(name)) {
	case "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "MONITOR":
		return true
	}
	return false
}

// flowDefs are the flow parts of cmds.
func flowDefs(cmds []Command) []flow.Def {
	defs := make([]flow.Def, len(cmds))
	for i, c := range cmds {
		defs[i] = flow.Def{Name: c.Name, Once: c.Once, Think: c.Think.D(), Capture: c.Capture}
	}
	return defs
}

// templateProblems compiles every templated argument of the section's
// commands, each with the variables its place in a flow gives it.
func (s *Spec) templateProblems(g *plan.Group, pos plan.Pos, key string) []error {
	cmds, list := s.sent()
	f := flow.Compiled(flowDefs(s.Flow), nil)
	var errs []error
	for i, c := range cmds {
		fields := c.fields(fmt.Sprintf("%s.%s[%d]", key, list, i))
		errs = append(errs, g.TemplatesVars(pos, fields, f.VarsBefore(i))...)
	}
	return errs
}

// fields are a command's templated arguments by their plan key.
func (c *Command) fields(key string) map[string]string {
	out := map[string]string{}
	for list, args := range map[string][]string{"cmd": c.Cmd, "keys": c.Keys, "args": c.Args} {
		for j, a := range args {
			out[fmt.Sprintf("%s.%s[%d]", key, list, j)] = a
		}
	}
	return out
}
