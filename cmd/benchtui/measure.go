package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
)

// measure is how measureGroup runs a group: each step count times (each
// run one sample), duration replacing the steps' durations unless 0,
// stop called on the first interrupt, snapshot (unless nil) handed each
// of the engine's snapshots.
type measure struct {
	count    int
	duration time.Duration
	stop     context.CancelFunc
	snapshot func(engine.Snapshot)
}

// measureGroup runs group g of pl once, headless as `run` does: a
// progress line a second on stderr, the artifact written to dir (the
// targets' logs too), as m says. The first interrupt stops the group,
// its figures written partial, and calls m.stop; the second quits at
// once.
func measureGroup(ctx context.Context, pl *plan.Plan, g *plan.Group, dir string, m measure, stderr io.Writer) (*artifacts.Artifact, error) {
	h := newHeadless(pl, dir, nil, stderr)
	h.snapshot = m.snapshot
	run := newEngineRun(pl, dir)
	run.Duration, run.Count = m.duration, m.count
	defer run.Close()
	intr := newInterrupter(h, run, m.stop)
	defer intr.close()
	res, lost, err := h.runGroup(ctx, run, g, intr)
	if err != nil {
		return res.artifact, errors.New(pl.Redact(err.Error()))
	}
	if lost {
		return res.artifact, errors.New("its artifact could not be written")
	}
	return res.artifact, nil
}
