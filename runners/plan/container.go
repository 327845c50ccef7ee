package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/benchtui/benchtui/runners/watch"
)

// containerProblems checks a target's container and runtime keys: runtime
// only beside container and one of watch.Runtimes, the name one argument
// a runtime can take (watch.ContainerNameProblem).
func (t *TargetSpec) containerProblems(name string) []error {
	var errs []error
	at := func(field, format string, args ...any) {
		errs = append(errs, Errorf(t.Pos, "targets."+name+"."+field, format, args...))
	}
	if t.Runtime != "" && t.Container == "" {
		at("runtime", "runtime is for a container target: give container too")
	}
	if t.Runtime != "" && !slices.Contains(watch.Runtimes, t.Runtime) {
		at("runtime", "want one of %s, got %q", strings.Join(watch.Runtimes, ", "), t.Runtime)
	}
	if t.Container != "" {
		if problem := watch.ContainerNameProblem(t.Container); problem != "" {
			at("container", "%q %s", t.Container, problem)
		}
	}
	return errs
}

// logCommandProblem says what is wrong with a log.command, "" when
// nothing (or none is given): at most MaxLogCommandArgs arguments of at
// most MaxLogCommandArg bytes, a program to run, no NUL byte (which no
// argument can hold; newlines are fine: `sh -c` scripts have them).
func logCommandProblem(cmd []string) string {
	if cmd == nil {
		return ""
	}
	switch {
	case len(cmd) == 0 || cmd[0] == "":
		return "give the program to run and its arguments"
	case len(cmd) > MaxLogCommandArgs:
		return fmt.Sprintf("want at most %d arguments, got %d", MaxLogCommandArgs, len(cmd))
	}
	for i, arg := range cmd {
		if len(arg) > MaxLogCommandArg || strings.ContainsRune(arg, 0) {
			return fmt.Sprintf("argument %d: want at most %d bytes without a NUL byte", i, MaxLogCommandArg)
		}
	}
	return ""
}
