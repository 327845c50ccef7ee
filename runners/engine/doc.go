// Package engine runs a plan's groups. A Run owns the targets the plan
// spawns (started once, shared by the groups, stopped on Close) and starts
// a Session per group run; a Session runs the group's steps (one per sweep
// value, repeated for repeat:/--count) through the group's runner kind,
// each step in phases (prepare, warmup, measure, drain). The engine owns
// every goroutine it starts and stops them by context: the open and closed
// loops that pace the runner's workers, a ticker that merges the workers'
// interval histograms into the step's tally and series, the sampler of the
// watched targets, the probes, the actions and the soak policy. A Session
// publishes a Snapshot after each tick on a one-slot, newest-wins channel,
// so a slow screen never slows the load, and its Result is the artifact:
// whole when the group ends, partial when it is stopped, never lost.
package engine
