// Package merge joins the artifacts of a distributed run's shards into the
// artifact of the whole run, exactly: counts summed with overflow checks,
// histograms, interval logs and block samples merged.
package merge

import (
	"fmt"
	"strings"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// Options say how Merge treats incomplete input and judges the result.
type Options struct {
	// AllowPartial merges when shards are missing (or stopped early) and
	// marks the result partial; otherwise a missing shard is an error.
	AllowPartial bool
	// Judge, when set, returns the threshold checks of a step, whose
	// group's merged steps before it are earlier: they are judged again on
	// the merged step, and a shard's own are left out.
	Judge func(s *artifacts.Step, earlier []artifacts.Step) []artifacts.Check
}

// Merge joins the artifacts of one group's shards into the artifact of
// the whole run, exactly: counts and rates are summed (a sum that would
// overflow is an error naming the file), histograms merged and
// percentiles read from the merged histograms. The target's figures
// are shard 0's (only it watches the target); each shard's own CPU and RSS
// are kept in shard.shards. Inputs of other runs, plans, tool versions,
// start times or shard counts, a shard without a step, and missing or
// duplicate indexes, are errors naming the file.
func Merge(in []artifacts.ShardFile, opts Options) (*artifacts.Artifact, error) {
	parts, missing, err := shardParts(in)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 && !opts.AllowPartial {
		return nil, fmt.Errorf("merging run %s: shards %s of %d missing (--allow-partial merges without them)", parts[0].A.Shard.RunID, joinInts(missing), parts[0].A.Shard.Count)
	}
	first := parts[0].A
	out := &artifacts.Artifact{Schema: artifacts.Schema, Run: first.Run, Group: first.Group, Notes: mergedNotes(parts, missing)}
	out.Run.ID = first.Shard.RunID
	out.Shard = mergedShardInfo(parts)
	for _, sp := range out.Shard.Shards {
		if len(sp.Saturated) > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("shard %d's generator saturated its %d CPUs (≥ %.0f%%) in %s: its latencies include its own queueing; run more shards",
				sp.Index, sp.Host.CPUs, artifacts.SaturatedShare*100, strings.Join(sp.Saturated, ", ")))
		}
	}
	out.Run.Partial = len(missing) > 0
	for _, p := range parts {
		out.Run.Started = earliest(out.Run.Started, p.A.Run.Started)
		if p.A.Run.Finished.After(out.Run.Finished) {
			out.Run.Finished = p.A.Run.Finished
		}
		out.Run.Partial = out.Run.Partial || p.A.Run.Partial
	}
	steps, err := mergeSteps(parts, opts)
	if err != nil {
		return nil, err
	}
	out.Steps = steps
	if len(out.Steps) < maxSteps(parts) {
		out.Run.Partial = true
	}
	return out, nil
}

// shardParts checks that in are shards of one run and returns them by
// index, with the indexes none of them holds.
func shardParts(in []artifacts.ShardFile) ([]artifacts.ShardFile, []int, error) {
	if len(in) == 0 {
		return nil, nil, fmt.Errorf("merging: no artifacts")
	}
	for _, f := range in {
		switch {
		case f.A.Shard == nil || f.A.Shard.Merged:
			return nil, nil, fmt.Errorf("merging: %s is not a shard's artifact (no shard block, or already merged)", f.Path)
		case f.A.Shard.Count < 1 || f.A.Shard.Count > artifacts.MaxShards:
			return nil, nil, fmt.Errorf("merging: %s: shard.count %d out of 1..%d", f.Path, f.A.Shard.Count, artifacts.MaxShards)
		case len(f.A.Steps) == 0:
			return nil, nil, fmt.Errorf("merging: %s: shard %d has no step (it stopped before its first step ended): nothing of it to merge; leave it out (with --allow-partial)", f.Path, f.A.Shard.Index)
		}
	}
	ref := in[0]
	byIndex := map[int]artifacts.ShardFile{}
	for _, f := range in {
		if err := sameRun(ref, f); err != nil {
			return nil, nil, err
		}
		if prev, dup := byIndex[f.A.Shard.Index]; dup {
			return nil, nil, fmt.Errorf("merging: %s and %s are both shard %d", prev.Path, f.Path, f.A.Shard.Index)
		}
		byIndex[f.A.Shard.Index] = f
	}
	var parts []artifacts.ShardFile
	var missing []int
	for i := range ref.A.Shard.Count {
		if f, ok := byIndex[i]; ok {
			parts = append(parts, f)
		} else {
			missing = append(missing, i)
		}
	}
	return parts, missing, nil
}

// sameRun reports how f differs from ref in what every shard of a run
// shares.
func sameRun(ref, f artifacts.ShardFile) error {
	a, b := ref.A.Shard, f.A.Shard
	for _, d := range []struct{ what, want, got string }{
		{"run_id", a.RunID, b.RunID},
		{"plan_sha256", a.PlanSHA256, b.PlanSHA256},
		{"tool_version", a.ToolVersion, b.ToolVersion},
		{"count", fmt.Sprint(a.Count), fmt.Sprint(b.Count)},
		{"start_at", a.StartAt.UTC().Format(time.RFC3339Nano), b.StartAt.UTC().Format(time.RFC3339Nano)},
		{"group", ref.A.Group.ID, f.A.Group.ID},
	} {
		if d.want != d.got {
			return fmt.Errorf("merging: %s: shard.%s %q differs from %q in %s", f.Path, d.what, d.got, d.want, ref.Path)
		}
	}
	if b.Index < 0 || b.Index >= b.Count {
		return fmt.Errorf("merging: %s: shard.index %d out of 0..%d", f.Path, b.Index, b.Count-1)
	}
	return nil
}

// mergedShardInfo is the merged artifact's shard block: the run's and
// each input's.
func mergedShardInfo(parts []artifacts.ShardFile) *artifacts.ShardInfo {
	info := *parts[0].A.Shard
	info.Index, info.Merged, info.Shards = 0, true, nil
	for _, p := range parts {
		sp := artifacts.ShardPart{Index: p.A.Shard.Index, File: p.Path, Host: p.A.Run.Host, Partial: p.A.Run.Partial}
		for _, s := range p.A.Steps {
			sp.Self = append(sp.Self, s.Self)
			if s.Self != nil && p.A.Run.Host.CPUs > 0 && s.Self.CPUCores >= artifacts.SaturatedShare*float64(p.A.Run.Host.CPUs) {
				sp.Saturated = append(sp.Saturated, s.Label)
			}
		}
		info.Shards = append(info.Shards, sp)
	}
	return &info
}

// mergedNotes are the shards' notes, each prefixed by its shard, and a
// note saying what was merged.
func mergedNotes(parts []artifacts.ShardFile, missing []int) []string {
	notes := []string{fmt.Sprintf("merged from %d of %d shards", len(parts), parts[0].A.Shard.Count)}
	if len(missing) > 0 {
		notes = append(notes, "missing shards: "+joinInts(missing))
	}
	for _, p := range parts {
		for _, n := range p.A.Notes {
			notes = append(notes, fmt.Sprintf("shard %d: %s", p.A.Shard.Index, n))
		}
	}
	return notes
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func maxSteps(parts []artifacts.ShardFile) int {
	n := 0
	for _, p := range parts {
		n = max(n, len(p.A.Steps))
	}
	return n
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
