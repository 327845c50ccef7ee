package engine

import (
	"context"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// NewRemoteSession is a session of group g that runs nothing: its
// snapshots come from feed, figures another process measured (the merged
// live view of a distributed run's shards), so the console can show a run
// it does not drive. Pause and extend refuse (the shards keep one clock);
// Stop ends the relay, not the run. Result is built from the finished
// steps the last snapshot carried (Snapshot.Done). The session ends when
// a snapshot says the group is done, feed closes, Stop is called, or ctx
// ends.
func NewRemoteSession(p *plan.Plan, g *plan.Group, feed <-chan Snapshot) *Session {
	return &Session{
		plan: p, group: g, steps: plan.Steps(g, 0), remote: feed,
		opts:  SessionOptions{Shard: runners.Shard{Count: 1}}, // as a shard: no pause, no extension
		snaps: make(chan Snapshot, 1),
		done:  make(chan struct{}),
	}
}

// relay publishes the feed's snapshots until it ends.
func (s *Session) relay(ctx context.Context) {
	defer close(s.done)
	defer close(s.snaps)
	defer s.cancel()
	for {
		select {
		case snap, ok := <-s.remote:
			if !ok {
				return
			}
			s.mu.Lock()
			s.results = append(s.results[:0], snap.Done...)
			s.mu.Unlock()
			s.publish(snap)
			if s.stopping() || snap.State == StateDone || snap.State == StateFailed {
				return // the group ended on every shard, or the relay was stopped
			}
		case <-ctx.Done():
			return
		}
	}
}
