package redisload

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/redis/rueidis"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// arg is one argument of a command: a template, or literal text.
type arg struct {
	lit string
	t   *tmpl.Template
}

// command is a compiled command of the mix or step of the flow.
type command struct {
	name   string
	weight int
	args   []arg        // the command and its arguments; a script's keys and args
	nkeys  int          // a script's: how many of args are keys
	lua    *rueidis.Lua // nil for a command
	script string
	expect []string
	counts map[string][]string // reply text -> the counters it counts
	text   bool                // expect, count or a capture read the reply's text
}

func compileCommand(g *plan.Group, c *Command, vars []string) (*command, error) {
	out := &command{name: c.Name, weight: max(c.Weight, 1), expect: c.Expect, script: c.Script}
	src := c.Cmd
	if c.Script != "" {
		out.lua, out.nkeys = rueidis.NewLuaScript(c.Script), len(c.Keys)
		src = append(slices.Clone(c.Keys), c.Args...)
	}
	for i, a := range src {
		if !tmpl.Has(a) {
			out.args = append(out.args, arg{lit: a})
			continue
		}
		t, err := g.TemplateVars(plan.Pos{}, fmt.Sprintf("argument %d", i), a, vars)
		if err != nil {
			return nil, err
		}
		out.args = append(out.args, arg{t: t})
	}
	for name, text := range c.Count {
		if out.counts == nil {
			out.counts = map[string][]string{}
		}
		out.counts[text] = append(out.counts[text], name)
	}
	for _, names := range out.counts {
		slices.Sort(names)
	}
	out.text = len(c.Expect) > 0 || len(c.Count) > 0 || len(c.Capture) > 0
	return out, nil
}

// render appends the command's arguments for st to dst, each a string.
func (c *command) render(dst []string, buf []byte, st *tmpl.State) ([]string, []byte) {
	for _, a := range c.args {
		if a.t == nil {
			dst = append(dst, a.lit)
			continue
		}
		buf = a.t.Append(buf[:0], st)
		dst = append(dst, string(buf))
	}
	return dst, buf
}

// build makes the command for the wire: a script goes as EVAL (in a
// pipeline, where there is no EVALSHA fallback), a command as written.
func (c *command) build(b rueidis.Builder, args []string) rueidis.Completed {
	if c.lua != nil {
		return b.Eval().Script(c.script).Numkeys(int64(c.nkeys)).Key(args[:c.nkeys]...).Arg(args[c.nkeys:]...).Build()
	}
	return b.Arbitrary(args...).Build()
}

// pick draws a command of the mix by weight.
func (r *runner) pick(rnd *rand.Rand) *command { return r.cmds[runners.PickWeighted(rnd, r.cum)] }

func newRand(id int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(id)+1, rand.Uint64()))
}
