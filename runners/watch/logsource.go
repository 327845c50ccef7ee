package watch

import (
	"fmt"
	"time"
)

// logSourceGrace is how long a log command has after SIGTERM before
// SIGKILL: it holds no state worth a longer wait.
const logSourceGrace = 2 * time.Second

// startLogSource spawns the target's log command (Config.LogCommand), if
// any, the way a target is spawned (its own process group, tied to
// benchtui's life, output straight to <LogDir>/<Name>-log.log, truncated),
// so the log counter tails that file as it tails a log.file.
func (p *Process) startLogSource() error {
	if len(p.cfg.LogCommand) == 0 {
		return nil
	}
	src, err := spawn(Config{
		Name: p.cfg.Name + "-log", Command: p.cfg.LogCommand,
		LogDir: p.cfg.LogDir, StopGrace: logSourceGrace,
	})
	if err != nil {
		return fmt.Errorf("starting the log command of target %q: %w", p.cfg.Name, err)
	}
	p.logSource = src
	return nil
}
