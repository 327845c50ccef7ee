package pgload

import (
	"context"
	"sync"

	"github.com/benchtui/benchtui/runners"
)

// groupCluster is the one embedded cluster of a group whose several loads
// say `dsn: embedded`: the first load to prepare starts it, sized for
// every load's pool; each load's runner leaves it when it closes, and the
// last one stops it (after the teardown of each).
type groupCluster struct {
	mu    sync.Mutex
	e     *Embedded
	conns int // the loads' largest pools, summed
	users int // the loads' runners not yet closed
}

// sharedCluster is the key of a group's groupCluster in runners.Shared.
const sharedCluster = "pgload.embedded"

// joinGroupCluster counts a load's runner, whose pools open up to conns
// connections, in its group's cluster; nil outside a group with loads.
func joinGroupCluster(env *runners.RunEnv, conns int) *groupCluster {
	if env == nil || env.Group == nil {
		return nil
	}
	c := env.Group.Get(sharedCluster, func() any { return &groupCluster{} }).(*groupCluster)
	c.mu.Lock()
	c.conns += conns
	c.users++
	c.mu.Unlock()
	return c
}

// start starts the cluster unless a load did already; started says this
// call did.
func (c *groupCluster) start(ctx context.Context) (e *Embedded, started bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.e != nil {
		return c.e, false, nil
	}
	if c.e, err = StartEmbedded(ctx, EmbeddedOptions{MaxConnections: c.conns + 20}); err != nil {
		return nil, false, err
	}
	return c.e, true, nil
}

// leave ends a load's use of the cluster: the last one stops it.
func (c *groupCluster) leave() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users--; c.users > 0 || c.e == nil {
		return nil
	}
	err := c.e.Stop()
	c.e = nil
	return err
}
