package main

import (
	"context"
	"fmt"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// loadMergePlan reads merge's --plan, nil without one.
func loadMergePlan(path string) (*plan.Plan, error) {
	if path == "" {
		return nil, nil
	}
	return plan.LoadPlan(path, kinds)
}

// verifyMerged runs, on each step of a merged artifact, the checks a
// distributed run keeps for its merge (the registry's Merged hooks: the
// `verify:` lists), with the whole run's counts. pl is the plan the shards
// ran; without one a group that has such checks gets a note saying how to
// run them.
func verifyMerged(ctx context.Context, reg *runners.Registry, pl *plan.Plan, a *artifacts.Artifact) error {
	if pl == nil {
		if _, ok := a.Group.Config["verify"]; ok || a.Group.Runner == "postgres" {
			a.Notes = append(a.Notes, "verify: not run (a shard's counts are only its share): benchtui merge --plan PLAN runs it on the merged counts")
		}
		return nil
	}
	if a.Shard != nil && pl.SHA256 != a.Shard.PlanSHA256 {
		return fmt.Errorf("--plan %s is not the plan the shards ran (its sha256 %.12s…, theirs %.12s…)", pl.Path, pl.SHA256, a.Shard.PlanSHA256)
	}
	groups, err := selectGroups(pl, a.Group.ID)
	if err != nil {
		return fmt.Errorf("--plan %s: %w", pl.Path, err)
	}
	g := groups[0]
	var sum runners.Summary
	vars := varsByLabel(g)
	for i := range a.Steps {
		s := &a.Steps[i]
		sum.Requests, sum.Errors, sum.Vars = s.Requests, s.Errors, vars[s.Label]
		sum.ByName = runners.NamedCountsOf(s.ByName)
		sum.GroupRequests, sum.GroupErrors = sum.GroupRequests+s.Requests, sum.GroupErrors+s.Errors
		for _, addon := range reg.Addons() {
			if addon.Merged == nil {
				continue
			}
			checks, err := addon.Merged(ctx, g, sum)
			for _, c := range checks {
				c.Name, c.Note = pl.Redact(c.Name), pl.Redact(c.Note)
				s.Checks = append(s.Checks, c)
			}
			if err != nil {
				s.Events = append(s.Events, artifacts.Event{T: s.DurationS, Kind: artifacts.EventNote, Note: pl.Redact(err.Error())})
			}
		}
	}
	return nil
}

// varsByLabel are the values of g's vars of each of its steps, by the
// step's label: a merged step's, as the plan makes them (the artifact's
// steps[].vars show a secret one redacted).
func varsByLabel(g *plan.Group) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, st := range plan.Steps(g, 0) {
		out[st.Label] = st.Vars
	}
	return out
}
