package plan

import (
	"fmt"
	"maps"

	"github.com/benchtui/benchtui/runners/tmpl"
)

// Task is one entry of a group's `setup:` or `teardown:` list: a command,
// HTTP request or SQL statement (an action's exec, http or sql) run before
// the group's first step (setup) or after its last (teardown), or, with
// EachStep, before or after every step. Its text may read the step's vars
// ({{.N}}).
type Task struct {
	Action   `yaml:",inline"`
	EachStep bool `yaml:"each_step"`
}

// MaxTasks bounds a group's setup and teardown lists, each.
const MaxTasks = 32

// validateTasks checks a group's setup and teardown lists: each entry is
// one exec, http or sql, with what that kind needs, and templates that
// compile.
func (p *Plan) validateTasks(g *Group) []error {
	var errs []error
	for _, list := range []struct {
		key   string
		tasks []*Task
	}{{"setup", g.Setup}, {"teardown", g.Teardown}} {
		if len(list.tasks) > MaxTasks {
			errs = append(errs, Errorf(g.Pos, "group "+g.ID+": "+list.key, "%d entries: at most %d", len(list.tasks), MaxTasks))
			continue
		}
		for i, t := range list.tasks {
			key := fmt.Sprintf("group %s: %s[%d]", g.ID, list.key, i)
			if t == nil {
				errs = append(errs, Errorf(g.Pos, key, "empty entry"))
				continue
			}
			for _, e := range p.taskProblems(g, t) {
				errs = append(errs, Errorf(t.Pos, key+"."+e[0], "%s", e[1]))
			}
			for field, src := range t.texts() {
				if _, err := g.stepTemplate(src); err != nil {
					errs = append(errs, Errorf(t.Pos, key+"."+field, "template: %v", err))
				}
			}
		}
	}
	return errs
}

// taskProblems are a task's problems, each a field and a message.
func (p *Plan) taskProblems(g *Group, t *Task) [][2]string {
	var out [][2]string
	if t.At != nil || t.Every != nil {
		out = append(out, [2]string{"at", "setup and teardown run before and after steps; at and every are for actions:"})
	}
	switch t.Kind() {
	case ActionExec, ActionHTTPK, ActionSQL:
	default:
		return append(out, [2]string{"exec", "give exactly one of exec, http and sql"})
	}
	if t.Exec != nil && (t.HTTP != nil || t.SQL != "") || t.HTTP != nil && t.SQL != "" {
		out = append(out, [2]string{"exec", "give exactly one of exec, http and sql"})
	}
	if t.DSN != "" && t.Kind() != ActionSQL {
		out = append(out, [2]string{"dsn", "only a sql entry reads a dsn"})
	}
	if d := t.Timeout.D(); d > MaxActionTimeout {
		out = append(out, [2]string{"timeout", fmt.Sprintf("%s is longer than %s", d, MaxActionTimeout)})
	}
	if p := NameProblem(t.Name); p != "" {
		out = append(out, [2]string{"name", p})
	}
	return append(out, p.kindProblems(g, &t.Action)...)
}

// texts are the task's fields that may read the step's vars, by key.
func (t *Task) texts() map[string]string {
	out := map[string]string{"sql": t.SQL}
	for i, a := range t.Exec {
		out[fmt.Sprintf("exec[%d]", i)] = a
	}
	if h := t.HTTP; h != nil {
		out["http.url"], out["http.body"] = h.URL, h.Body
		for k, v := range h.Headers {
			out["http.headers."+k] = v
		}
	}
	return out
}

// stepTemplate compiles src, which may read the group's vars ({{.N}}) and
// the functions that need no data row; a task runs once, so a data
// column means nothing to it.
func (g *Group) stepTemplate(src string) (*tmpl.Template, error) {
	return g.compile(src, tmpl.Scope{Step: g.VarNames()})
}

// RenderedTask is t's action for a step whose vars are vals: every text
// field rendered.
func (g *Group) RenderedTask(t *Task, vals map[string]string) (Action, error) {
	a := t.Action
	st := tmpl.NewState(nil, nil)
	st.SetStep(g.StepValues(vals))
	render := func(src string) (string, error) {
		if !tmpl.Has(src) {
			return src, nil
		}
		c, err := g.stepTemplate(src)
		if err != nil {
			return "", err
		}
		return string(c.Append(nil, st)), nil
	}
	var err error
	a.Exec = append([]string(nil), t.Exec...)
	for i := range a.Exec {
		if a.Exec[i], err = render(a.Exec[i]); err != nil {
			return a, err
		}
	}
	if a.SQL, err = render(a.SQL); err != nil {
		return a, err
	}
	if t.HTTP != nil {
		h := *t.HTTP
		h.Headers = maps.Clone(t.HTTP.Headers)
		if h.URL, err = render(h.URL); err != nil {
			return a, err
		}
		if h.Body, err = render(h.Body); err != nil {
			return a, err
		}
		for k, v := range h.Headers {
			if h.Headers[k], err = render(v); err != nil {
				return a, err
			}
		}
		a.HTTP = &h
	}
	return a, nil
}
