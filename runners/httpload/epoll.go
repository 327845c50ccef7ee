package httpload

import (
	"net/url"
	"strings"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// clientEpoll is `client: epoll`: the lean HTTP/1.1 client driven by
// event loops, one per GOMAXPROCS, each owning its share of the step's
// connections through epoll, without Go's netpoller (epoll_linux.go).
// `client: auto` (the default) takes it wherever the group allows it
// (autoRefusals), and the goroutine clients elsewhere.
const clientEpoll = "epoll"

// autoRefusals are why `client: auto` cannot take the event loops for
// g's spec s in a run on shard sh: none when it can.
func autoRefusals(g *plan.Group, s *Spec, sh runners.Shard) []string {
	why := epollRefusals(g, s)
	if sh.Active() {
		why = append(why, "the run is sharded")
	}
	return why
}

// autoClient says whether s leaves the choice of client to benchtui.
func autoClient(s *Spec) bool { return s.Client == "" || s.Client == "auto" }

// shardable refuses client: epoll in a distributed run: its event loops
// do not split the load over shards.
func shardable(g *plan.Group) error {
	if s := plan.Section[Spec](g, Section); s != nil && s.Client == clientEpoll {
		return plan.Errorf(g.SectionPos[Section], "group "+g.ID+": "+Section+".client", "epoll does not run sharded (run --shard, kube): use client: auto")
	}
	return nil
}

// epollProblems are the plan's uses of client: epoll it does not serve
// (yet): each is refused at the client key.
func epollProblems(g *plan.Group, s *Spec, pos plan.Pos, key string) []error {
	if s.Client != clientEpoll {
		if s.Pipeline > 1 {
			return []error{plan.Errorf(pos, key+".pipeline", "needs client: epoll")}
		}
		return nil
	}
	errs := pipelineProblems(s, pos, key)
	if why := epollRefusals(g, s); len(why) > 0 {
		errs = append(errs, plan.Errorf(pos, key+".client", "epoll: %s; use client: auto", strings.Join(why, "; ")))
	}
	return errs
}

// epollRefusals are what of g's spec s the event loops do not serve
// (yet), each a clause ("it needs Linux"); none when they serve it all.
func epollRefusals(g *plan.Group, s *Spec) []string {
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
	if s.JudgesReplies() {
		why = append(why, "it judges no replies: no assert or tally")
	}
	if g.Data != nil {
		why = append(why, "it reads no data file")
	}
	if g.Counted() {
		why = append(why, "it runs for a duration (no iterations)")
	}
	return why
}

// MaxPipeline bounds http.pipeline.
const MaxPipeline = 1024

// pipelineProblems: a pipeline is of kept-alive connections to one
// address, at most MaxPipeline deep.
func pipelineProblems(s *Spec, pos plan.Pos, key string) []error {
	k := key + ".pipeline"
	switch {
	case s.Pipeline < 0 || s.Pipeline > MaxPipeline:
		return []error{plan.Errorf(pos, k, "want 1 to %d, got %d", MaxPipeline, s.Pipeline)}
	case s.Pipeline <= 1:
		return nil
	case s.Connection == "fresh":
		return []error{plan.Errorf(pos, k, "pipelines kept-alive connections, not connection: fresh")}
	}
	for _, r := range s.Requests[min(1, len(s.Requests)):] {
		if hostOf(r.URL) != hostOf(s.Requests[0].URL) {
			return []error{plan.Errorf(pos, k, "a pipelined mix goes to one host:port; %s and %s differ",
				plan.RedactURLs(s.Requests[0].URL), plan.RedactURLs(r.URL))}
		}
	}
	return nil
}

// hostOf is a URL's host:port as written.
func hostOf(raw string) string {
	u, err := url.Parse(tmpl.Skeleton(raw))
	if err != nil {
		return raw
	}
	return u.Host
}
