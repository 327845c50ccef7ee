package plan

import (
	"context"
	"os/exec"
)

// BuildCommand is the target's `build:` as a command to run, in the
// target's `dir:` with its `env:` added to benchtui's environment, as the
// console's rebuild key and `benchtui bisect` run it; nil without a
// build command. Its output is the caller's to set.
func (t *TargetSpec) BuildCommand(ctx context.Context) *exec.Cmd {
	if len(t.Build) == 0 {
		return nil
	}
	cmd := exec.CommandContext(ctx, t.Build[0], t.Build[1:]...)
	cmd.Dir = t.Dir
	cmd.Env = cmd.Environ()
	for k, v := range t.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}
