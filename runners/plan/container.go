package plan

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// ContainerRuntimes are the container CLIs a container target is resolved
// with (runners/watch, when the target starts); each answers `inspect
// --format '{{.State.Pid}}' NAME` with the main PID of a running
// container (0 when it is not running).
var ContainerRuntimes = []string{"docker", "podman", "nerdctl"}

// MaxContainerName bounds a container's name or id.
const MaxContainerName = 253

// ContainerNameProblem says what is wrong with a container name, "" when
// nothing: it is passed to the runtime as one argument, so it must not be
// empty, hold control bytes, be longer than MaxContainerName or start with
// '-' (the runtime would read an option). Whether the container runs is
// known when the target starts (or from `benchtui doctor`).
func ContainerNameProblem(name string) string {
	switch {
	case name == "":
		return "empty"
	case len(name) > MaxContainerName:
		return fmt.Sprintf("longer than %d bytes", MaxContainerName)
	case strings.ContainsFunc(name, unicode.IsControl):
		return "holds control characters"
	case strings.HasPrefix(name, "-"):
		return "starts with '-' (the runtime would read an option)"
	}
	return ""
}

// containerProblems checks a target's container and runtime keys: runtime
// only beside container and one of ContainerRuntimes, the name one
// argument a runtime can take (ContainerNameProblem).
func (t *TargetSpec) containerProblems(name string) []error {
	var errs []error
	at := func(field, format string, args ...any) {
		errs = append(errs, Errorf(t.Pos, "targets."+name+"."+field, format, args...))
	}
	if t.Runtime != "" && t.Container == "" {
		at("runtime", "runtime is for a container target: give container too")
	}
	if t.Runtime != "" && !slices.Contains(ContainerRuntimes, t.Runtime) {
		at("runtime", "want one of %s, got %q", strings.Join(ContainerRuntimes, ", "), t.Runtime)
	}
	if t.Container != "" {
		if problem := ContainerNameProblem(t.Container); problem != "" {
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
