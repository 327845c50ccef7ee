package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
)

// exitMissedStart is `run --shard`'s exit code when the shard was not
// ready by its start time (a Job's podFailurePolicy fails on it).
const exitMissedStart = 3

// shardFlags are `run`'s options for one shard of a distributed run.
type shardFlags struct {
	shard, runID, startAt, readyFile string
	tolerance                        time.Duration
}

// maxStartTolerance bounds --start-tolerance: a shard later than this is
// out of step with the others whatever the flag says.
const maxStartTolerance = 10 * time.Minute

func (s *shardFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.shard, "shard", "", "run shard I of N (I/N); /N takes I from $JOB_COMPLETION_INDEX")
	fs.StringVar(&s.runID, "run-id", "", "with --shard: the id every shard of the run shares")
	fs.StringVar(&s.startAt, "start-at", "", "with --shard: when every shard starts (RFC3339 or unix seconds)")
	fs.StringVar(&s.readyFile, "ready-file", "", "with --shard: a file written once the shard is prepared and waits for its start")
	fs.DurationVar(&s.tolerance, "start-tolerance", 0, fmt.Sprintf("with --shard: how late past a step's start a shard may be ready before it exits 3 (default %s)", engine.ShardTolerance))
}

// parse turns the flags into a Shard; without --shard it is the zero
// Shard, and --run-id or --start-at alone is an error.
func (s *shardFlags) parse(getenv func(string) string) (runners.Shard, error) {
	if s.shard == "" {
		if s.runID != "" || s.startAt != "" || s.readyFile != "" || s.tolerance != 0 {
			return runners.Shard{}, fmt.Errorf("--run-id, --start-at, --start-tolerance and --ready-file need --shard I/N")
		}
		return runners.Shard{}, nil
	}
	sh, err := parseShardSpec(s.shard, getenv("JOB_COMPLETION_INDEX"))
	if err != nil {
		return sh, err
	}
	if s.runID == "" {
		return sh, fmt.Errorf("--shard needs --run-id ID (the same on every shard)")
	}
	if s.startAt == "" {
		return sh, fmt.Errorf("--shard needs --start-at T (the same on every shard)")
	}
	if s.tolerance < 0 || s.tolerance > maxStartTolerance {
		return sh, fmt.Errorf("--start-tolerance %s: want a duration from 0 to %s", s.tolerance, maxStartTolerance)
	}
	sh.RunID, sh.ReadyFile, sh.Tolerance = s.runID, s.readyFile, s.tolerance
	sh.StartAt, err = parseStartAt(s.startAt)
	return sh, err
}

// parseShardSpec parses "I/N", or "/N" with I from index (the Job's
// completion index).
func parseShardSpec(spec, index string) (runners.Shard, error) {
	is, ns, ok := strings.Cut(spec, "/")
	if !ok {
		return runners.Shard{}, fmt.Errorf("--shard %q: want I/N (or /N with $JOB_COMPLETION_INDEX set)", spec)
	}
	if is == "" {
		if index == "" {
			return runners.Shard{}, fmt.Errorf("--shard %q: no index before the slash and $JOB_COMPLETION_INDEX is not set", spec)
		}
		is = index
	}
	i, erri := strconv.Atoi(is)
	n, errn := strconv.Atoi(ns)
	if erri != nil || errn != nil || n < 1 || i < 0 || i >= n {
		return runners.Shard{}, fmt.Errorf("--shard %q: want I/N with 0 <= I < N", is+"/"+ns)
	}
	return runners.Shard{Index: i, Count: n}, nil
}

// maxStartAhead bounds how far ahead --start-at may be: the shards wait
// for it prepared, their targets started, and a time past year 9999
// could not be written in an artifact at all.
const maxStartAhead = 7 * 24 * time.Hour

// parseStartAt reads T as RFC3339 or as unix seconds (fractions allowed),
// at most maxStartAhead from now.
func parseStartAt(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f <= 0 || f > float64(time.Now().Add(maxStartAhead).Unix()) {
			return time.Time{}, fmt.Errorf("--start-at %q: want RFC3339 (2026-01-02T15:04:05Z) or unix seconds, at most 7 days ahead", s)
		}
		sec := int64(f)
		t = time.Unix(sec, int64((f-float64(sec))*1e9))
	}
	if t.After(time.Now().Add(maxStartAhead)) {
		return time.Time{}, fmt.Errorf("--start-at %q: more than 7 days ahead", s)
	}
	return t, nil
}

// prepareShard checks, before anything starts, that the groups can be
// split over the shards and that the start time is still ahead; it
// returns the exit code when not (0 when the run may go on).
func prepareShard(sh runners.Shard, groups []*plan.Group, stderr io.Writer) int {
	if !sh.Active() {
		return exitOK
	}
	for _, g := range groups {
		if err := engine.CheckShardable(kinds, g, sh.Count); err != nil {
			fmt.Fprintln(stderr, "benchtui run:", err)
			return exitUsage
		}
	}
	if late, tolerance := time.Since(sh.StartAt), engine.StartTolerance(sh); late > tolerance {
		fmt.Fprintf(stderr, "benchtui run: shard %d/%d: --start-at %s passed %s ago (tolerance %s): not started\n",
			sh.Index, sh.Count, sh.StartAt.UTC().Format(time.RFC3339), late.Round(time.Millisecond), tolerance)
		return exitMissedStart
	}
	return exitOK
}

// framedOutput is a shard's output: the format's, and each group's
// artifact framed (artifacts.WriteFramed) when the group ends, so that a
// pod's log (`kubectl logs`) carries it to `benchtui merge`.
type framedOutput struct {
	runOutput
	w, stderr io.Writer
}

// shardOutput wraps out for a shard: the frames go to stdout after the
// text output, to stderr when stdout holds a json or csv document.
func shardOutput(sh runners.Shard, format string, out runOutput, stdout, stderr io.Writer) runOutput {
	if !sh.Active() {
		return out
	}
	w := stdout
	if format != formatText {
		w = stderr
	}
	return framedOutput{runOutput: out, w: w, stderr: stderr}
}

func (o framedOutput) group(r groupResult) {
	o.runOutput.group(r)
	if r.artifact == nil {
		return
	}
	if err := artifacts.WriteFramed(o.w, r.artifact); err != nil {
		fmt.Fprintln(o.stderr, "benchtui run: framing the artifact:", err)
	}
}
