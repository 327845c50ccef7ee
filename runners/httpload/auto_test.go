package httpload

import (
	"fmt"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestAutoTakesTheEventLoops: client: auto (and no client) builds the
// event loops for a plain mix on Linux, but not in a sharded run nor for
// a mix they do not serve; net/http stays net/http.
func TestAutoTakesTheEventLoops(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, http string
		shard      runners.Shard
		loops      bool
	}{
		{"plain mix", `{requests: [{url: "http://127.0.0.1:1/a"}, {url: "http://127.0.0.1:1/b", method: HEAD}]}`, runners.Shard{}, true},
		{"auto named", `{client: auto, requests: [{url: "http://127.0.0.1:1/a"}]}`, runners.Shard{}, true},
		{"sharded", `{requests: [{url: "http://127.0.0.1:1/a"}]}`, runners.Shard{Index: 1, Count: 2}, false},
		{"template", `{requests: [{url: "http://127.0.0.1:1/{{seq}}"}]}`, runners.Shard{}, false},
		{"https", `{requests: [{url: "https://127.0.0.1:1/a"}]}`, runners.Shard{}, false},
		{"flow", `{flow: [{url: "http://127.0.0.1:1/a"}]}`, runners.Shard{}, false},
		{"net/http", `{client: net/http, requests: [{url: "http://127.0.0.1:1/a"}]}`, runners.Shard{}, false},
	} {
		p, err := plan.ParsePlan("p.yaml", []byte(fmt.Sprintf("version: 1\ngroups:\n  - id: g\n    runner: http\n    http: %s\n    load: {concurrency: 1}\n    duration: 1s\n", c.http)),
			func(string) (string, bool) { return "", false }, testRegistry)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r, err := New(p.Groups[0], &runners.RunEnv{Plan: p, Shard: c.shard})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, loops := r.(runners.Driver) // the event loops drive their own connections
		if want := c.loops && epollSupported; loops != want {
			t.Errorf("%s: event loops %v, want %v (runner %T)", c.name, loops, want, r)
		}
		r.Close()
	}
}

// TestAutoSaysOnceWhyNotTheEventLoops: a group whose mix the event loops
// do not serve (a template) runs on the goroutine client, and its first
// step, not the second, notes why; the requests reach the server.
func TestAutoSaysOnceWhyNotTheEventLoops(t *testing.T) {
	t.Parallel()
	srv, served := runnertest.CountingServer(t, 0)
	a := runGroup(t, fmt.Sprintf(`  - id: templated
    runner: http
    http: {requests: [{url: "%s/{{seq}}"}]}
    load: {concurrency: 1}
    duration: 200ms
    sweep: {concurrency: [1, 2]}
`, srv.URL), nil)
	var notes []int
	var requests int64
	for i, st := range a.Steps {
		requests += st.Requests
		for _, e := range st.Events {
			if e.Kind == artifacts.EventNote && strings.HasPrefix(e.Note, "http.client auto: the goroutine client, not the event loops: ") {
				notes = append(notes, i)
				if epollSupported && !strings.Contains(e.Note, "no templates") {
					t.Errorf("note %q does not say the templates are why", e.Note)
				}
			}
		}
	}
	if len(notes) != 1 || notes[0] != 0 {
		t.Errorf("the note is in steps %v, want in the first only", notes)
	}
	if requests == 0 || requests != served.Load() {
		t.Errorf("%d requests, the server served %d", requests, served.Load())
	}
}
