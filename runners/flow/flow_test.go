package flow

import (
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/plan"
)

func compileOne(t *testing.T, caps map[string]Capture) *Flow {
	t.Helper()
	f, problems := Compile([]Def{{Name: "a", Capture: caps}, {Name: "b"}}, nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return f
}

// TestExtract: each source finds its value in a reply, or reports it
// missing; numbers and objects come as their JSON text, 64-bit ids exact.
func TestExtract(t *testing.T) {
	body := []byte(`{"result":{"session":"s-1","id":9007199254740993,"tags":["x"],"none":null}} token=abc; id=7`)
	cases := []struct {
		c      Capture
		want   string
		wantOK bool
	}{
		{Capture{Header: "x-session"}, "h-1", true},
		{Capture{Header: "X-Other"}, "", false},
		{Capture{JSON: "$.result.session"}, "s-1", true},
		{Capture{JSON: "$.result.id"}, "9007199254740993", true},
		{Capture{JSON: "$.result.tags"}, `["x"]`, true},
		{Capture{JSON: "$.result.none"}, "", false},
		{Capture{JSON: "$.missing"}, "", false},
		{Capture{Regex: `token=(\w+)`}, "abc", true},
		{Capture{Regex: `id=\d`}, "id=7", true},
		{Capture{Regex: `nope=(\d)`}, "", false},
	}
	for _, c := range cases {
		f := compileOne(t, map[string]Capture{"v": c.c})
		s := &f.Steps[0]
		r := &Reply{Body: body}
		for _, h := range s.Headers {
			if strings.EqualFold(h, "X-Session") {
				r.Headers = append(r.Headers, "h-1")
			} else {
				r.Headers = append(r.Headers, "")
			}
		}
		got, ok := s.ex[0].extract(r)
		if got != c.want || ok != c.wantOK {
			t.Errorf("%+v: got %q %v, want %q %v", c.c, got, ok, c.want, c.wantOK)
		}
	}
}

// TestJSONBodyThatIsNotJSON: a body cut at the limit, or not JSON, fails
// the capture instead of capturing garbage.
func TestJSONBodyThatIsNotJSON(t *testing.T) {
	f := compileOne(t, map[string]Capture{"v": {JSON: "$.a"}})
	for _, body := range []string{`{"a":"x"`, `<html>`, ``} {
		if v, ok := f.Steps[0].ex[0].extract(&Reply{Body: []byte(body)}); ok {
			t.Errorf("body %q captured %q", body, v)
		}
	}
}

// TestValuesAreBounded: a value longer than MaxValueBytes, or not UTF-8,
// is a failed capture: a hostile server cannot make a worker keep, and
// send on, what it likes.
func TestValuesAreBounded(t *testing.T) {
	f := compileOne(t, map[string]Capture{"v": {Regex: `v=(\S+)`}})
	long := "v=" + strings.Repeat("x", MaxValueBytes+1)
	for _, body := range []string{long, "v=\xff\xfe"} {
		if _, ok := f.Steps[0].ex[0].extract(&Reply{Body: []byte(body)}); ok {
			t.Errorf("a body of %d bytes captured", len(body))
		}
	}
	if v, ok := f.Steps[0].ex[0].extract(&Reply{Body: []byte(long[:MaxValueBytes+2])}); !ok || len(v) != MaxValueBytes {
		t.Errorf("a value of the limit: %d bytes, %v", len(v), ok)
	}
}

// wantProblems compiles defs and wants each of wants among the problems.
func wantProblems(t *testing.T, defs []Def, columns []string, wants ...string) {
	t.Helper()
	_, problems := Compile(defs, columns)
	var got []string
	for _, p := range problems {
		got = append(got, p.Error())
	}
	all := strings.Join(got, "\n")
	for _, want := range wants {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
}

// TestCompileProblems names each mistake's step and field.
func TestCompileProblems(t *testing.T) {
	defs := []Def{
		{Name: "a", Capture: map[string]Capture{"1bad": {Header: "X"}, "ok": {Header: "bad header"}}},
		{Name: "a", Think: -1, Capture: map[string]Capture{"col": {Regex: "(a)(b)"}}},
	}
	wantProblems(t, defs, []string{"col"},
		"flow[0].capture.1bad: want a name",
		"flow[0].capture.ok: header: \"bad header\" is not a header name",
		"flow[1].name: \"a\" names two steps",
		"flow[1].think: must not be negative",
		"flow[1].capture.col: \"col\" is also a column",
	)
	if _, p := Compile(make([]Def, MaxSteps+1), nil); len(p) != 1 {
		t.Errorf("%d steps: %v", MaxSteps+1, p)
	}
}

// TestVarsBefore: a step's templates see the variables of the steps
// before it, as a prefix of Vars (their indexes agree).
func TestVarsBefore(t *testing.T) {
	f, p := Compile([]Def{
		{Capture: map[string]Capture{"b": {Header: "X-B"}, "a": {Header: "X-A"}}},
		{Capture: map[string]Capture{"c": {Regex: "c"}, "a": {Regex: "a"}}},
		{},
	}, nil)
	if len(p) > 0 {
		t.Fatal(p)
	}
	if got := strings.Join(f.VarsBefore(0), ","); got != "" {
		t.Errorf("before 0: %q", got)
	}
	if got := strings.Join(f.VarsBefore(1), ","); got != "a,b" {
		t.Errorf("before 1: %q", got)
	}
	if got := strings.Join(f.VarsBefore(2), ","); got != "a,b,c" {
		t.Errorf("before 2: %q", got)
	}
	if f.Steps[1].WantsBody() != true || f.Steps[0].WantsBody() || len(f.Steps[0].Headers) != 2 {
		t.Errorf("step 0 headers %v body %v; step 1 body %v", f.Steps[0].Headers, f.Steps[0].WantsBody(), f.Steps[1].WantsBody())
	}
}

// TestRenewProblems names each mistake of a renew, and a good one makes
// the later steps (not the once steps) read what its condition needs.
func TestRenewProblems(t *testing.T) {
	d := func(d time.Duration) plan.Duration { return plan.Duration{Duration: d} }
	defs := []Def{
		{Name: "a", Renew: &Renew{}},
		{Name: "b", Once: true, Renew: &Renew{After: d(time.Millisecond), On: &RenewOn{}}},
		{Name: "c", Once: true, Renew: &Renew{On: &RenewOn{Status: []int{42}, Header: "bad header", HeaderMatch: "(", Body: strings.Repeat("x", MaxRenewPattern+1)}}},
		{Name: "d", Once: true, Renew: &Renew{On: &RenewOn{HeaderMatch: "x"}}},
	}
	wantProblems(t, defs, nil,
		"flow[0].renew: is for once steps",
		"flow[0].renew: want after (a time to live), on (a reply that needs it), or both",
		"flow[1].renew.after: at least 1s",
		"flow[1].renew.on: want status, header or body",
		"flow[2].renew.on.status: 42 is not a status",
		"flow[2].renew.on.header: \"bad header\" is not a header name",
		"flow[2].renew.on.header_match: error parsing regexp",
		"flow[2].renew.on.body: 513 bytes; at most 512",
		"flow[3].renew.on.header_match: needs header",
	)
	f, problems := Compile([]Def{
		{Name: "token", Once: true, Renew: &Renew{After: d(time.Minute), On: &RenewOn{Status: []int{401}, Header: "WWW-Authenticate", HeaderMatch: "invalid_token", Body: "expired"}}},
		{Name: "init", Once: true},
		{Name: "use", Capture: map[string]Capture{"x": {Header: "www-authenticate"}}},
	}, nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	use := &f.Steps[2]
	if len(use.Headers) != 1 || !use.WantsBody() || f.Steps[1].WantsBody() || len(f.Steps[1].watch) != 0 || !f.Renews() {
		t.Fatalf("use reads headers %v, body %v; init watches %v", use.Headers, use.WantsBody(), f.Steps[1].watch)
	}
	for _, c := range []struct {
		status int
		header string
		body   string
		want   int
	}{
		{401, "", "", 0},
		{200, `Bearer error="invalid_token"`, "", 0},
		{200, `Bearer realm="x"`, "", -1},
		{200, "", "the token expired", 0},
		{200, "", strings.Repeat(" ", MaxRenewBody) + "expired", -1},
		{500, "", "fine", -1},
	} {
		r := &Reply{Headers: []string{c.header}, Body: []byte(c.body)}
		if got := f.renewFor(use, c.status, r); got != c.want {
			t.Errorf("status %d header %q body of %d bytes: renews from %d, want %d", c.status, c.header, len(c.body), got, c.want)
		}
	}
}

// TestCompiledAndJoinProblems: Compiled is nil for no steps or steps
// with problems, and a nil Flow (a mix) has no variables; JoinProblems
// names each problem under its section.
func TestCompiledAndJoinProblems(t *testing.T) {
	if Compiled(nil, nil) != nil || Compiled([]Def{{Think: -1}}, nil) != nil {
		t.Error("Compiled made a flow of no steps or of bad ones")
	}
	if f := Compiled([]Def{{Name: "a"}}, nil); f == nil || len(f.Steps) != 1 {
		t.Errorf("Compiled: %v", f)
	}
	var mix *Flow
	if v := mix.VarsBefore(3); v != nil {
		t.Errorf("a nil flow's vars: %v", v)
	}
	if JoinProblems("redis", nil) != nil {
		t.Error("no problems made an error")
	}
	err := JoinProblems("grpc", []Problem{{Key: "target", Msg: "want host:port"}, {Key: "calls[0].method", Msg: "bad"}})
	if err == nil || err.Error() != "grpc.target: want host:port\ngrpc.calls[0].method: bad" {
		t.Errorf("JoinProblems: %v", err)
	}
}
