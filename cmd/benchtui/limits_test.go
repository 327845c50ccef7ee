package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// loadsAtLimits is a plan of one group with n copies of load (a YAML flow
// mapping with a %s for its name), one a line from line 6 on.
func loadsAtLimits(n int, load string) string {
	var b strings.Builder
	b.WriteString("version: 1\ngroups:\n  - id: many\n    duration: 2s\n    loads:\n")
	for i := range n {
		b.WriteString("      - " + fmt.Sprintf(load, fmt.Sprintf("l%d", i)) + "\n")
	}
	return b.String()
}

// TestLoadsPastTheLimitsRefused: the plans of 16 loads, each at
// the limit of one load (a million arrivals a second and 100,000 in
// flight; 100,000 subscribers), are refused by validate and by run with
// exit 2 and an error naming the file, line and field of the load whose
// share passes the limit, before anything is sent. (They had run, with
// 0 requests and "✓ pass" in 2.5 GB, or died out of memory.)
func TestLoadsPastTheLimitsRefused(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, load string }{
		{"16 x 1e6/s", `{name: %s, runner: http, http: {requests: [{url: "http://127.0.0.1:1/"}]}, load: {rate: 1e6, max_in_flight: 100000}}`},
		{"16 x 100k subscribers", `{name: %s, runner: sse, sse: {url: "http://127.0.0.1:1/events", subscribers: 100000}}`},
	}
	wants := map[string][]string{
		"16 x 1e6/s": {
			"plan.yaml:7:9: group many: loads[1].load.rate: the loads' rates add up to 16000000 arrivals/s, above the limit of 1000000",
			"plan.yaml:7:9: group many: loads[1].load.max_in_flight: the loads' workers (concurrency, max_in_flight, subscribers) add up to 1600000, above the limit of 100000",
		},
		"16 x 100k subscribers": {
			"plan.yaml:7:38: group many: loads[1].sse.subscribers: the loads' workers (concurrency, max_in_flight, subscribers) add up to 1600000, above the limit of 100000",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := writePlanText(t, loadsAtLimits(16, c.load))
			for _, args := range [][]string{{"validate", path}, {"run", path, "-o", t.TempDir()}} {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				ch := startBinary(t, ctx, args...)
				code := ch.wait()
				for _, want := range wants[c.name] {
					if code != exitUsage || !strings.Contains(ch.stderr.String(), want) {
						t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 and %q", args[0], code, ch.stderr, want)
					}
				}
			}
		})
	}
}
