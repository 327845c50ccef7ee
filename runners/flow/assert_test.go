package flow

import (
	"regexp"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// counts keeps what tallies count.
type counts map[string]int64

func (c counts) Count(name string, n int64) { c[name] += n }

func ptr[T any](v T) *T { return &v }

func eq(v string) plan.Comparison { return plan.Comparison{EQ: &v} }

// literalOnly refuses templates: these checks have none.
func literalOnly(src string) (*tmpl.Template, error) { return tmpl.Compile(src, nil, nil) }

// TestChecksJudgeReplies: each kind of entry holds on a reply that meets
// it and fails, naming itself and the value read, on one that does not.
func TestChecksJudgeReplies(t *testing.T) {
	body := `{"accepted":0,"duplicates":20,"status":"ok","big":12345678901234567890,"nil":null}`
	cases := []struct {
		a    Assert
		ok   bool
		note string
	}{
		{Assert{JSON: "$.accepted", Comparison: eq("0")}, true, ""},
		{Assert{JSON: "$.duplicates", Comparison: eq("19")}, false, "assert[0] $.duplicates: got 20, want == 19"},
		{Assert{JSON: "$.duplicates", Comparison: plan.Comparison{Between: []string{"10", "30"}}}, true, ""},
		{Assert{JSON: "$.status", Comparison: eq("ok")}, true, ""},
		{Assert{JSON: "$.status", Comparison: plan.Comparison{NE: ptr("ok")}}, false, `got "ok", want != "ok"`},
		{Assert{JSON: "$.status", Comparison: plan.Comparison{GT: ptr("1")}}, false, `got "ok", want a number > 1`},
		{Assert{JSON: "$.big", Comparison: eq("12345678901234567890")}, true, ""},
		{Assert{JSON: "$.missing", Comparison: eq("0")}, false, "$.missing: absent"},
		{Assert{JSON: "$.missing", Absent: ptr(true)}, true, ""},
		{Assert{JSON: "$.nil", Absent: ptr(true)}, true, ""},
		{Assert{JSON: "$.status", Absent: ptr(true)}, false, `got "ok", want it absent`},
		{Assert{JSON: "$.status", Absent: ptr(false)}, true, ""},
		{Assert{JSON: "$.status", Match: "^o"}, true, ""},
		{Assert{Header: "content-type", Match: "^application/json"}, false, `header content-type: got "text/plain", want a match of "^application/json"`},
		{Assert{Header: "X-Absent", Absent: ptr(false)}, false, "header X-Absent: absent"},
		{Assert{Body: `"status":"ok"`}, true, ""},
		{Assert{Body: "torn|mismatch", Absent: ptr(true)}, true, ""},
		{Assert{Body: "dup[a-z]+", Absent: ptr(true)}, false, `assert[0] body: matched "dup[a-z]+": "duplicates"`},
		{Assert{Body: "nowhere"}, false, `no match of "nowhere"`},
	}
	for _, c := range cases {
		checks, problems := CompileChecks([]Assert{c.a}, nil, []string{"Mcp-Session-Id"}, literalOnly)
		if len(problems) > 0 {
			t.Fatalf("%+v: %v", c.a, problems)
		}
		r := &Reply{Body: []byte(body)}
		for _, h := range checks.Headers { // what a sender fills in
			r.Headers = append(r.Headers, map[string]string{"mcp-session-id": "s1", "content-type": "text/plain"}[strings.ToLower(h)])
		}
		note, ok := checks.Judge(r, nil, counts{})
		if ok != c.ok || !strings.Contains(note, c.note) {
			t.Errorf("%+v: ok %v %q, want %v %q", c.a, ok, note, c.ok, c.note)
		}
	}
}

// TestChecksHeadersExtendTheCaptures: an assertion's header joins the
// headers the step's captures read, after them, once per name.
func TestChecksHeadersExtendTheCaptures(t *testing.T) {
	checks, problems := CompileChecks([]Assert{{Header: "mcp-session-id", Absent: ptr(false)}, {Header: "Content-Type", Match: "json"}},
		nil, []string{"Mcp-Session-Id"}, literalOnly)
	if len(problems) > 0 || strings.Join(checks.Headers, ",") != "Mcp-Session-Id,Content-Type" || checks.WantsBody() {
		t.Errorf("headers %v, body %v, problems %v", checks.Headers, checks.WantsBody(), problems)
	}
}

// TestTallyCountsAsFindAll: a tally counts what FindAllIndex finds, line
// anchors included, and counts at 0 nothing.
func TestTallyCountsAsFindAll(t *testing.T) {
	body := []byte("data: 1\n\ndata: 2\nxdata: no\ndata: 3\n")
	for _, pattern := range []string{`(?m)^data: `, `data`, `x*`, `\b`} {
		re := regexp.MustCompile(pattern)
		if got, want := countMatches(re, body), int64(len(re.FindAllIndex(body, -1))); got != want {
			t.Errorf("%s: counted %d, FindAllIndex %d", pattern, got, want)
		}
	}
	checks, _ := CompileChecks(nil, map[string]string{"frames": `(?m)^data: `, "none": "zzz"}, nil, literalOnly)
	rec := counts{}
	if _, ok := checks.Judge(&Reply{Body: body}, nil, rec); !ok {
		t.Fatal("tallies alone never fail")
	}
	if c := rec; c["frames"] != 3 || len(c) != 1 {
		t.Errorf("counters %v, want frames 3 only", c)
	}
	if got := strings.Join(checks.Counters(), ","); got != "frames,none" {
		t.Errorf("counters named %q", got)
	}
}

// TestChecksProblems: each bad entry is a problem naming its field, at the
// entry's position.
func TestChecksProblems(t *testing.T) {
	at := plan.Pos{File: "p.yaml", Line: 7, Column: 11}
	long := strings.Repeat("a", 513)
	asserts := []Assert{
		{JSON: "$.a", Header: "X", Absent: ptr(true), Pos: at},
		{JSON: "$[", Comparison: eq("1")},
		{JSON: "$.a"},
		{JSON: "$.a", Comparison: plan.Comparison{LT: ptr("few")}},
		{JSON: "$.a", Comparison: eq("1"), Match: "x"},
		{Header: "Bad Name", Absent: ptr(true)},
		{Body: "(", Absent: ptr(true)},
		{Body: "x", Comparison: eq("1")},
		{JSON: "$.a", Comparison: plan.Comparison{EQ: ptr("1"), NE: ptr("2")}},
		{JSON: "$.a", Comparison: plan.Comparison{Between: []string{"5", "1"}}},
		{Body: long},
		{JSON: "$.a", Match: "(x"},
		{},
	}
	_, problems := CompileChecks(asserts, map[string]string{"bad name": "x", "retries": "x", "ok": "(", "empty": ""}, nil, literalOnly)
	want := []string{
		"assert[0]: want exactly one of json, header or body",
		"assert[1]: json: ",
		"assert[2]: want one check of the value",
		"assert[3].<: want a number, got \"few\"",
		"assert[4]: want one check of the value",
		"assert[5]: header: \"Bad Name\" is not a header name",
		"assert[6].body: error parsing regexp",
		"assert[7]: body is a pattern",
		"assert[8]: one operator per entry",
		"assert[9].between: between [5, 1]: the low end is above the high end",
		"assert[10].body: 513 bytes; at most 512",
		"assert[11].match: error parsing regexp",
		"assert[12]: want exactly one of json, header or body",
		"tally.bad name: want a counter name",
		"tally.empty: want a regular expression",
		"tally.ok: error parsing regexp",
		"tally.retries: \"retries\" is a counter of flows that renew",
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.Error())
	}
	if len(got) != len(want) {
		t.Fatalf("%d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d: %q, want it to start %q", i, got[i], want[i])
		}
	}
	if problems[0].At != at {
		t.Errorf("the first problem is at %v, want the entry's %v", problems[0].At, at)
	}
	many := make([]Assert, MaxAsserts+1)
	if _, p := CompileChecks(many, nil, nil, literalOnly); len(p) == 0 || p[0].Error() != "assert: 17 entries; at most 16" {
		t.Errorf("too many entries: %v", p)
	}
}
