package pgload

import (
	"slices"
	"strings"

	"github.com/benchtui/benchtui/runners/evloop"
	"github.com/benchtui/benchtui/runners/plan"
)

// The values of `postgres.client`.
const (
	// ClientPgx (the default): each worker runs its statements through
	// pgx, on a pooled connection or its own.
	ClientPgx = "pgx"
	// ClientEpoll: event loops, one per GOMAXPROCS, own a connection per
	// worker through epoll, without Go's netpoller, and speak the
	// extended protocol themselves (epoll_linux.go): each statement a
	// Bind, Execute and Sync of a statement prepared once per connection.
	ClientEpoll = "epoll"
)

// Epoll reports whether the section asks for the epoll client.
func (s *Spec) Epoll() bool { return s.Client == ClientEpoll }

// clientProblems reports a client the section cannot run.
func (s *Spec) clientProblems(pos plan.Pos, key string) []error {
	switch s.Client {
	case "", ClientPgx:
		return nil
	case ClientEpoll:
	default:
		return []error{plan.Errorf(pos, key+".client", "want %q (the default) or %q, got %q", ClientPgx, ClientEpoll, s.Client)}
	}
	var why []string
	if !evloop.Supported {
		why = append(why, "it needs Linux")
	}
	if len(s.Flow) > 0 {
		why = append(why, "it runs a mix of statements, not a flow")
	}
	if slices.ContainsFunc(s.Statements, func(st Statement) bool { return len(st.Tx) > 0 }) {
		why = append(why, "it runs statements of one sql each, not tx")
	}
	if s.Pool != 0 || s.Connection == ConnectionPool {
		why = append(why, "each worker has a connection of its own (no pool:, no connection: pool)")
	}
	if len(why) == 0 {
		return nil
	}
	return []error{plan.Errorf(pos, key+".client", "epoll: %s; use client: %s", strings.Join(why, "; "), ClientPgx)}
}

// epollLoadProblems reports a load the epoll client cannot drive: it
// runs for a duration, not a count of iterations.
func (s *Spec) epollLoadProblems(g *plan.Group, pos plan.Pos, key string) []error {
	if s.Epoll() && g.Counted() {
		return []error{plan.Errorf(pos, key+".client", "epoll: it runs for a duration (no iterations); use client: %s", ClientPgx)}
	}
	return nil
}
