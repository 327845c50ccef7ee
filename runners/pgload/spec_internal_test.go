package pgload

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

func TestMaxParam(t *testing.T) {
	t.Parallel()
	for sql, want := range map[string]int{
		"SELECT 1":                               0,
		"INSERT INTO t VALUES ($1, $2)":          2,
		"SELECT $3 + $12":                        12,
		"SELECT '$9', \"$8\", $1":                1,
		"SELECT $$ quoted $$":                    0,
		"UPDATE t SET a = $2 WHERE b = '''$5'''": 2,
	} {
		if got := maxParam(sql); got != want {
			t.Errorf("maxParam(%q) = %d, want %d", sql, got, want)
		}
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	res := runners.Summary{Requests: 120, Errors: 3}
	cases := []struct {
		got, expect string
		ok          bool
		value       float64
	}{
		{"0", "0", true, 0},
		{"120", "{{requests}}", true, 120},
		{"120.000", "{{requests}}", true, 120},
		{"3", "{{errors}}", true, 3},
		{"4", "{{errors}}", false, 4},
		{"done", "done", true, 0},
		{"done", "pending", false, 0},
		{"NULL", "0", false, 0},
		{"17", "", true, 17},
	}
	for _, c := range cases {
		ok, value, note := judge(c.got, c.expect, res)
		if ok != c.ok || value != c.value {
			t.Errorf("judge(%q, %q) = %v, %v (%s); want %v, %v", c.got, c.expect, ok, value, note, c.ok, c.value)
		}
		if !ok && !strings.HasPrefix(note, "got ") {
			t.Errorf("judge(%q, %q) note %q, want got … want …", c.got, c.expect, note)
		}
	}
}

func TestArgGenerators(t *testing.T) {
	t.Parallel()
	r := &runner{seq: tmpl.NewSeq()}
	w := &worker{r: r, id: 5, rng: rand.New(rand.NewPCG(1, 2))}
	gen := func(s string) any {
		g, err := parseArg(s, argScope{})
		if err != nil {
			t.Fatalf("parseArg(%q): %v", s, err)
		}
		return g(w)
	}
	if gen("$seq") != int64(1) || gen("$seq") != int64(2) || gen("$worker") != int64(5) {
		t.Error("$seq or $worker wrong")
	}
	if gen("plain") != "plain" || gen("$$x") != "$x" {
		t.Error("literals wrong")
	}
	for range 1000 {
		if v := gen("$rand_int:-2:2").(int64); v < -2 || v > 2 {
			t.Fatalf("$rand_int:-2:2 gave %d", v)
		}
	}
	if v := gen("$rand_text:7").(string); len(v) != 7 {
		t.Errorf("$rand_text:7 gave %q", v)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if v := gen("$uuid").(string); !uuid.MatchString(v) {
		t.Errorf("$uuid gave %q", v)
	}
	for _, bad := range []string{"$nope", "$rand_int:5:1", "$rand_int:1", "$rand_text:0", "$rand_text:x"} {
		if _, err := parseArg(bad, argScope{}); err == nil {
			t.Errorf("parseArg(%q) accepted", bad)
		}
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	t.Parallel()
	g := &plan.Group{ID: "P", Runner: "postgres", SectionPos: map[string]plan.Pos{"postgres": {File: "plan.yaml", Line: 7, Column: 5}},
		Sections: map[string]any{"postgres": &Spec{Pool: -1, Statements: []Statement{
			{SQL: "SELECT 1", Tx: []string{"SELECT 2"}},
			{Weight: -1, SQL: "SELECT $1", Args: []string{"$bogus"}},
		}, Verify: []Verify{{Name: "v"}}}}}
	errs := validateGroup(g)
	text := fmt.Sprint(errors.Join(errs...))
	for _, want := range []string{"postgres.dsn", "postgres.pool", "statements[0]: want exactly one of sql and tx",
		"statements[1].weight", "statements[1].args[0]", "postgres.verify[0].sql", "plan.yaml:7:5"} {
		if !strings.Contains(text, want) {
			t.Errorf("validation errors lack %q:\n%s", want, text)
		}
	}
	if errs := validateGroup(&plan.Group{Runner: "postgres"}); len(errs) != 1 {
		t.Errorf("a group without a postgres section: %v", errs)
	}
}

func TestRedactErr(t *testing.T) {
	t.Parallel()
	dsn := "host=127.0.0.1 user=bob password=hunter2 dbname=x"
	err := redactErr(errors.New("failed for hunter2 at postgres://bob:hunter2@h/x"), dsn)
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("password in %q", err)
	}
	if errors.Unwrap(err) == nil {
		t.Error("the chain is lost")
	}
}
