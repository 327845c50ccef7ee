package plan

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

const probePlan = `version: 1
groups:
  - id: G1
    runner: sleep
    sleep: {delay: 5ms}
    load: {concurrency: 1}
    duration: 2s
    probes:
%s`

func TestProbesDecode(t *testing.T) {
	src := strings.Replace(probePlan, "%s", `      - {name: backlog, interval: 2s, sql: "SELECT 1", dsn: "postgres://u:${DB_PASSWORD}@127.0.0.1/x"}
      - {name: pending, http: {url: "http://127.0.0.1:8080/stats", json: $.queue.pending}}
      - {name: depth, timeout: 50ms, command: ["sh", "-c", "wc -l < /tmp/q"]}
      - {name: heap, metric: {url: "http://127.0.0.1:8080/metrics", name: go_memstats_heap_inuse_bytes, labels: {job: api}}}
`, 1)
	p, err := ParsePlan("plan.yaml", []byte(src), env(map[string]string{"DB_PASSWORD": "hunter22"}), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	ps := p.Groups[0].Probes
	if len(ps) != 4 || ps[0].Every().Seconds() != 2 || ps[0].ProbeTimeout().Seconds() != 2 || ps[1].Every().Seconds() != 1 ||
		ps[2].ProbeTimeout().Milliseconds() != 50 || ps[3].Metric.Labels["job"] != "api" || ps[1].HTTP.JSON != "$.queue.pending" {
		t.Fatalf("probes %+v", ps)
	}
	if ps[2].Pos.Line != 11 || ps[2].Pos.Column != 9 {
		t.Errorf("probes[2] at %v, want plan.yaml:11:9", ps[2].Pos)
	}
	cfg := p.Groups[0].Raw["probes"].([]any)[0].(map[string]any)
	if strings.Contains(cfg["dsn"].(string), "hunter22") {
		t.Errorf("the artifact's config shows the password: %v", cfg)
	}
}

// TestProbeErrors: each bad probe is an error at its own line, naming the
// field.
func TestProbeErrors(t *testing.T) {
	for _, c := range []struct{ probe, want string }{
		{`{name: a, sql: "SELECT 1"}`, "plan.yaml:9:9: group G1: probes[0].dsn: missing"},
		{`{name: a, sql: "SELECT 1", dsn: embedded}`, "probes[0].dsn: embedded names the group's embedded cluster"},
		{`{name: a, sql: "SELECT 1", dsn: "mysql://x"}`, "probes[0].dsn: want a postgres:// URL"},
		{`{name: a}`, "probes[0].sql: give exactly one of sql, http, command or metric, got 0"},
		{`{name: a, command: [x], metric: {url: "http://127.0.0.1/m", name: m}}`, "got 2"},
		{`{name: a, interval: 10ms, command: [x]}`, "probes[0].interval: want 100ms to 1h0m0s, got 10ms"},
		{`{name: a, timeout: 1m, command: [x]}`, "probes[0].timeout: want at most 10s"},
		{`{name: a.b, command: [x]}`, `probes[0].name: "a.b": want`},
		{`{name: a, command: [""]}`, "probes[0].command: the program"},
		{`{name: a, http: {url: "ftp://127.0.0.1/x", json: $.a}}`, `probes[0].http.url: want an http:// or https:// URL, got scheme "ftp"`},
		{`{name: a, http: {url: "http://127.0.0.1/x", json: "$[?"}}`, "probes[0].http.json:"},
		{`{name: a, metric: {url: "http://127.0.0.1/m", name: "9bad"}}`, "probes[0].metric.name:"},
		{`{name: a, http: {url: "http://127.0.0.1/x"}}`, "plan.yaml:9:25: groups[0].probes[0].http.json: missing (required)"},
		{`{name: a, interval: soon, command: [x]}`, `groups[0].probes[0].interval: bad duration "soon"`},
		{`{name: a, colour: red, command: [x]}`, "groups[0].probes[0].colour: unknown key"},
		{"{name: a, command: [x]}\n      - {name: a, command: [y]}", `plan.yaml:10:9: group G1: probes[1].name: probe "a" given twice`},
	} {
		src := strings.Replace(probePlan, "%s", "      - "+c.probe+"\n", 1)
		_, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %q", c.probe, err, c.want)
		}
	}
}

func TestProbeURLsAreWarnedLikeAnyURL(t *testing.T) {
	src := strings.Replace(probePlan, "%s", `      - {name: a, http: {url: "http://203.0.113.9/stats", json: $.a}}
      - {name: b, metric: {url: "http://127.0.0.1/metrics", name: m}}
      - {name: c, sql: "SELECT 1", dsn: "postgres://u@198.51.100.4/x"}
`, 1)
	p, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	got := p.RemoteWarnings(func(context.Context, string, string) ([]netip.Addr, error) { return nil, errors.New("no") })
	if len(got) != 2 || !strings.Contains(got[0], "probes[0].http.url: 203.0.113.9") || !strings.Contains(got[1], "probes[2].dsn: 198.51.100.4") {
		t.Errorf("warnings %q", got)
	}
}
