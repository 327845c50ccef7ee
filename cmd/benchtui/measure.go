package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// measureGroup runs group g of pl once, headless as `run` does: a
// progress line a second on stderr, the artifact written to dir (the
// targets' logs too), each step count times (each run one sample), d
// replacing the steps' durations unless 0. The first interrupt stops the
// group, its figures written partial, and calls stop; the second quits at
// once.
func measureGroup(ctx context.Context, pl *plan.Plan, g *plan.Group, dir string, count int, d time.Duration,
	stop context.CancelFunc, stderr io.Writer) (*artifacts.Artifact, error) {
	h := newHeadless(pl, dir, nil, stderr)
	run := newEngineRun(pl, dir)
	run.Duration, run.Count = d, count
	defer run.Close()
	intr := newInterrupter(h, run, stop)
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
