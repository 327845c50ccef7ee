package httpload

import (
	"strings"

	"github.com/benchtui/benchtui/runners/plan"
)

// clientEpoll is `client: epoll`: the lean HTTP/1.1 client driven by
// event loops, one per GOMAXPROCS, each owning its share of the step's
// connections through epoll, without Go's netpoller (epoll_linux.go).
// It is opt-in while the goroutine client stays the default.
const clientEpoll = "epoll"

// epollProblems are the plan's uses of client: epoll it does not serve
// (yet): each is refused at the client key.
func epollProblems(g *plan.Group, s *Spec, pos plan.Pos, key string) []error {
	if s.Client != clientEpoll {
		return nil
	}
	var why []string
	if !epollSupported {
		why = append(why, "it needs Linux")
	}
	if len(s.Flow) > 0 {
		why = append(why, "it sends requests: mixes, not flows")
	} else if !leanEligible(s) {
		why = append(why, "it sends plain http:// HTTP/1.1 only")
	}
	for _, r := range s.Requests {
		if templated(&r) {
			why = append(why, "its requests are serialized once: no templates")
			break
		}
	}
	if g.Data != nil {
		why = append(why, "it reads no data file")
	}
	if g.Counted() {
		why = append(why, "it runs for a duration (no iterations)")
	}
	if len(why) == 0 {
		return nil
	}
	return []error{plan.Errorf(pos, key+".client", "epoll: %s; use client: auto", strings.Join(why, "; "))}
}
