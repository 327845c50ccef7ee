package plan

import (
	"fmt"
	"time"
)

// Window is one entry of a group's `windows:` list: a span of each
// measured step tied to an action, whose operations get figures of their
// own (steps[].windows.NAME, checkable as windows.NAME.p99):
//
//	windows:
//	  - {name: rotation, during: rotate}          # from the action's start to its end
//	  - {name: after_kill, after: kill, for: 5s}  # from the action's end, for 5s
//
// An operation belongs to a window when it was due (its latency's start)
// within it, so one the action held up counts however late it ends.
type Window struct {
	Name string `yaml:"name,required"`
	// During names the action (by its name:) the window spans each run of.
	During string `yaml:"during"`
	// After names the action whose end opens the window, For long.
	After string   `yaml:"after"`
	For   Duration `yaml:"for"`
	Pos   Pos      `yaml:"-"`
}

// Window bounds.
const (
	MaxWindows   = 16
	MaxWindowFor = time.Hour
)

// Action is the name of the action the window follows.
func (w *Window) Action() string {
	if w.During != "" {
		return w.During
	}
	return w.After
}

// validateWindows checks the group's windows: unique names that can name
// figures, exactly one of during and after, for with after only, and an
// action of that name.
func (g *Group) validateWindows() []error {
	errs, names := g.tooMany("windows", len(g.Windows), MaxWindows), map[string]int{}
	for i := range g.Windows {
		w := &g.Windows[i]
		names[w.Name]++
		for _, e := range g.windowProblems(w, names[w.Name] > 1) {
			errs = append(errs, Errorf(w.Pos, fmt.Sprintf("group %s: windows[%d].%s", g.ID, i, e[0]), "%s", e[1]))
		}
	}
	return errs
}

// windowProblems are a window's problems, each a field and a message;
// again says an earlier window has its name.
func (g *Group) windowProblems(w *Window, again bool) [][2]string {
	var out [][2]string
	bad := func(field, format string, args ...any) {
		out = append(out, [2]string{field, fmt.Sprintf(format, args...)})
	}
	if !validProbeName.MatchString(w.Name) {
		bad("name", "%q: want 1 to 64 letters, digits, '_' or '-', starting with a letter or '_' (it names the window's figures: windows.NAME.p99)", w.Name)
	} else if again {
		bad("name", "window %q given twice", w.Name)
	}
	switch {
	case (w.During == "") == (w.After == ""):
		bad("during", "give exactly one of during: ACTION (while the action runs) and after: ACTION with for: DURATION")
	case w.During != "" && w.For.D() != 0:
		bad("for", "for goes with after: a during window ends with its action")
	case w.After != "" && (w.For.D() <= 0 || w.For.D() > MaxWindowFor):
		bad("for", "after: %s wants for: a duration above 0 and at most %s, got %s", w.After, MaxWindowFor, w.For.D())
	}
	field := map[bool]string{true: "during", false: "after"}[w.During != ""]
	switch name := w.Action(); {
	case name == "":
	case g.actionsNamed(name) == 0:
		bad(field, "no action named %q in the group's actions (named: %v)", name, g.actionNames())
	case g.actionsNamed(name) > 1:
		bad(field, "%d actions are named %q: name the one the window follows apart", g.actionsNamed(name), name)
	}
	return out
}

// actionsNamed is how many of the group's actions have that name.
func (g *Group) actionsNamed(name string) int {
	n := 0
	for _, a := range g.Actions {
		if a != nil && a.Name == name {
			n++
		}
	}
	return n
}

// actionNames are the names the group's actions give themselves.
func (g *Group) actionNames() []string {
	var names []string
	for _, a := range g.Actions {
		if a != nil && a.Name != "" {
			names = append(names, a.Name)
		}
	}
	return names
}

// tooMany is the problem of a list of the group's (key: probes, windows)
// with n entries, more than most; none otherwise.
func (g *Group) tooMany(key string, n, most int) []error {
	if n <= most {
		return nil
	}
	return []error{Errorf(g.Pos, fmt.Sprintf("group %s: %s", g.ID, key), "want at most %d %s, got %d", most, key, n)}
}
