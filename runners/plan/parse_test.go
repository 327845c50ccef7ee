package plan

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

const goodPlan = `version: 1
artifacts: ./out
targets:
  api:
    command: ["./server", "--port", "8080"]
    ready: tcp://127.0.0.1:8080
groups:
  - id: G1
    title: sleepy
    target: api
    runner: sleep
    sleep: {delay: 5ms}
    load: {concurrency: 4}
    duration: 2s
    soak: {extend_while_rss_rising: {slope_mb_per_min: 1.0, window: 60s, step: 60s, max: 540s}}
    thresholds: {p99: 50ms, error_rate: 0}
`

func TestParseGoodPlan(t *testing.T) {
	p, err := ParsePlan("plan.yaml", []byte(goodPlan), env(nil), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	g := p.Groups[0]
	if g.ID != "G1" || g.Load.Concurrency != 4 || g.Duration.D().Seconds() != 2 || g.Sections["sleep"] == nil {
		t.Errorf("group = %+v", g)
	}
	if r := g.Soak.ExtendWhileRSSRising; r.Max.D().Seconds() != 540 || r.SlopeMBPerMin != 1 {
		t.Errorf("soak = %+v", r)
	}
	if *g.Thresholds.ErrorRate != 0 || g.Thresholds.P99.D().Milliseconds() != 50 {
		t.Errorf("thresholds = %+v", g.Thresholds)
	}
	if p.Targets["api"].Pos.Line != 5 {
		t.Errorf("target pos = %v", p.Targets["api"].Pos)
	}
}

func TestPlanErrorsNamePlaceAndKey(t *testing.T) {
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"unknown key", "    title: sleepy\n", "    title: sleepy\n    colour: red\n", []string{"plan.yaml:10:5: groups[0].colour: unknown key"}},
		{"bad duration", "duration: 2s", "duration: 2 seconds", []string{"plan.yaml:14:15: groups[0].duration: bad duration \"2 seconds\""}},
		{"wrong type", "concurrency: 4", "concurrency: four", []string{"plan.yaml:13:25: groups[0].load.concurrency: want a whole number, got \"four\""}},
		{"missing field", "    runner: sleep\n", "", []string{"plan.yaml:8:5: groups[0].runner: missing (required)"}},
		{"nested unknown", "window: 60s", "windw: 60s", []string{"plan.yaml:15:61: groups[0].soak.extend_while_rss_rising.windw: unknown key"}},
		{"section key", "delay: 5ms", "delay: 5ms, dela: 1", []string{"plan.yaml:12:25: groups[0].sleep.dela: unknown key"}},
		{"unset var", "./out", "${OUT_DIR}", []string{"plan.yaml:2:12: ${OUT_DIR}: environment variable OUT_DIR is not set"}},
		{"unknown target", "target: api", "target: db", []string{"group G1: target: no target named \"db\""}},
		{"unknown runner", "runner: sleep", "runner: slep", []string{"group G1: runner: unknown runner \"slep\""}},
		{"all at once", "duration: 2s", "duration: 2x\n    bogus: 1", []string{"14:15: groups[0].duration", "15:5: groups[0].bogus: unknown key"}},
		{"open loop without slots", "{concurrency: 4}", "{rate: 100}", []string{"load.max_in_flight: an open loop needs max_in_flight"}},
		{"block under a tick", "duration: 2s", "duration: 2s\n    block: 10ms", []string{"group G1: block: 10ms is shorter than the engine's 250ms tick"}},
		{"soak max under duration", "max: 540s", "max: 1s", []string{"soak.extend_while_rss_rising.max: 1s is shorter than duration 2s"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(goodPlan, c.from, c.to, 1)
			_, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain\n%s", err, w)
				}
			}
		})
	}
}

func TestEnvExpansionAndSecrets(t *testing.T) {
	src := strings.Replace(goodPlan, "./out", "${OUT:-./dflt}", 1)
	src = strings.Replace(src, `"--port", "8080"`, `"--token", "${API_TOKEN}"`, 1)
	p, err := ParsePlan("plan.yaml", []byte(src), env(map[string]string{"API_TOKEN": "s3cr3t"}), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Artifacts != "./dflt" || p.Targets["api"].Command[2] != "s3cr3t" {
		t.Errorf("artifacts=%q command=%q", p.Artifacts, p.Targets["api"].Command)
	}
	if got := p.Redact("auth s3cr3t and postgres://u:pw@127.0.0.1/db"); strings.Contains(got, "s3cr3t") || strings.Contains(got, "pw@") {
		t.Errorf("Redact left a secret: %q", got)
	}
}

// TestWrittenConfigKeepsReferences: a group's written config holds the
// ${VAR} references, its expanded config their values.
func TestWrittenConfigKeepsReferences(t *testing.T) {
	src := strings.Replace(goodPlan, "delay: 5ms", `delay: "${DELAY}"`, 1)
	p, err := ParsePlan("plan.yaml", []byte(src), env(map[string]string{"DELAY": "7ms"}), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	g := p.Groups[0]
	written, raw := g.Written["sleep"].(map[string]any), g.Raw["sleep"].(map[string]any)
	if written["delay"] != "${DELAY}" || raw["delay"] != "7ms" {
		t.Errorf("written %v, expanded %v", written, raw)
	}
}

func TestPlanErrorsHideSecrets(t *testing.T) {
	src := strings.Replace(goodPlan, "concurrency: 4", `concurrency: "${DB_PASSWORD}"`, 1)
	_, err := ParsePlan("plan.yaml", []byte(src), env(map[string]string{"DB_PASSWORD": "hunter2"}), testSchema{})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "load.concurrency") {
		t.Errorf("error %v: want the bad key named and the secret hidden", err)
	}
}

func TestRawConfigIsRedacted(t *testing.T) {
	src := strings.Replace(goodPlan, "    title: sleepy\n", "    title: postgres://bob:hunter2@127.0.0.1/x\n", 1)
	p, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Groups[0].Raw["title"].(string); strings.Contains(s, "hunter2") {
		t.Errorf("raw config kept a password: %q", s)
	}
}

func FuzzParsePlan(f *testing.F) {
	f.Add([]byte(goodPlan))
	f.Add([]byte("version: 1\ngroups: []\n"))
	f.Add([]byte("version: 1\ngroups:\n  - id: x\n    runner: sleep\n    load: {rate: 1e9, max_in_flight: -1}\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("version: ${V:-1}\ngroups: {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePlan("fuzz.yaml", data, env(nil), testSchema{})
		if err == nil && p == nil {
			t.Fatal("nil plan without error")
		}
	})
}

func TestRemoteWarnings(t *testing.T) {
	src := `version: 1
groups:
  - id: g
    runner: sleep
    load: {concurrency: 1}
    duration: 1s
    sleep: {delay: 1ms}
    verify:
      - {dsn: "postgres://u:${PW}@203.0.113.7:5432/db", sql: x}
      - {dsn: "host=10.0.0.5 user=u password=${PW}", sql: x}
      - {dsn: "host='db.example' user=u", sql: x}
      - {dsn: embedded, sql: x}
      - {url: "http://[::1]:8080/x"}
      - {url: "https://api.example.com/x"}
      - {addr: "192.168.1.2:4433"}
      - {addr: "localhost:4433"}
`
	p, err := ParsePlan("plan.yaml", []byte(src), env(map[string]string{"PW": "s3cret"}), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(_ context.Context, _, host string) ([]netip.Addr, error) {
		switch host {
		case "db.example":
			return []netip.Addr{netip.MustParseAddr("10.1.2.3")}, nil
		case "api.example.com":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("198.51.100.1")}, nil
		}
		return nil, errors.New("no such host")
	}
	got := p.RemoteWarnings(resolve)
	want := []string{"verify[0].dsn: 203.0.113.7 is neither", "verify[5].url: api.example.com is neither"}
	if len(got) != len(want) {
		t.Fatalf("warnings %q, want %d", got, len(want))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) || strings.Contains(got[i], "s3cret") {
			t.Errorf("warning %q, want %q", got[i], w)
		}
	}
}

// TestSecretsRedactedWhereSubstituted: a secret ${VAR} is hidden in the
// title, the config and messages wherever it was substituted, and free
// text is searched for it; a secret too short to be searched for is a
// plan error naming the variable, never the value.
func TestSecretsRedactedWhereSubstituted(t *testing.T) {
	src := strings.Replace(goodPlan, "title: sleepy", `title: "token ${API_TOKEN} at 127.0.0.1"`, 1)
	src = strings.Replace(src, "delay: 5ms", `delay: "${API_TOKEN}"`, 1)
	_, err := ParsePlan("plan.yaml", []byte(src), env(map[string]string{"API_TOKEN": "s3cr3t"}), testSchema{})
	var pe *PlanError
	if !errors.As(err, &pe) {
		t.Fatalf("want the bad delay reported, got %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `bad duration "[redacted]"`) || strings.Contains(msg, "s3cr3t") {
		t.Errorf("error %q: want the delay's value shown redacted", msg)
	}
	short := strings.Replace(src, `delay: "${API_TOKEN}"`, `delay: 5ms`, 1)
	_, err = ParsePlan("plan.yaml", []byte(short), env(map[string]string{"API_TOKEN": "q7z"}), testSchema{})
	if err == nil || !strings.Contains(err.Error(), "${API_TOKEN}: API_TOKEN is named like a secret and its value is 3 bytes") || strings.Contains(err.Error(), "q7z") {
		t.Errorf("a 3-byte secret: got %v, want it refused by name", err)
	}
	p, err := ParsePlan("plan.yaml", []byte(short), env(map[string]string{"API_TOKEN": "s3cr3t"}), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	g := p.Groups[0]
	if g.Title != "token [redacted] at 127.0.0.1" || g.Raw["title"] != g.Title {
		t.Errorf("title %q, config title %q: want the token redacted and the address whole", g.Title, g.Raw["title"])
	}
	if got := p.Redact(`pq: password "s3cr3t" rejected`); strings.Contains(got, "s3cr3t") {
		t.Errorf("Redact left a secret in free text: %q", got)
	}
}

// TestRedactEscapesControlBytes: text from a server shown through Redact
// cannot carry an escape sequence to the terminal; its lines stay lines.
func TestRedactEscapesControlBytes(t *testing.T) {
	var p *Plan
	got := p.Redact("status 500: \x1b]0;pwned\a\x1b[2J\r\nsecond line")
	if got != `status 500: \x1b]0;pwned\a\x1b[2J\r`+"\nsecond line" {
		t.Errorf("Redact = %q", got)
	}
}
