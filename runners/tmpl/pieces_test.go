package tmpl

import (
	"slices"
	"strings"
	"testing"
)

// TestLiteralPiecesAreData: a literal piece (a ${VAR}'s value) renders as
// written, whatever template syntax it holds, even where its braces meet
// the text's; the text pieces around it are compiled.
func TestLiteralPiecesAreData(t *testing.T) {
	getenv := func(k string) string { return "env-" + k }
	cases := []struct {
		pieces []Piece
		want   string
	}{
		{[]Piece{{Text: "b="}, {Text: `{{env "API_TOKEN"}}`, Literal: true}}, `b={{env "API_TOKEN"}}`},
		{[]Piece{{Text: `{{rand_int 3 3}}-`}, {Text: "{{uuid}}", Literal: true}, {Text: `-{{env "X"}}`}}, "3-{{uuid}}-env-X"},
		{[]Piece{{Text: "{"}, {Text: "{", Literal: true}, {Text: "seq}}"}}, "{{seq}}"},
		{[]Piece{{Text: `{"p": `}, {Text: `{"a": 1}`, Literal: true}, {Text: `, "n": {{seq}}}`}}, `{"p": {"a": 1}, "n": 1}`},
	}
	s := NewState(nil, nil)
	s.Next()
	for _, c := range cases {
		tp, err := CompilePieces(c.pieces, Scope{}, getenv)
		if err != nil {
			t.Fatalf("%v: %v", c.pieces, err)
		}
		if got := string(tp.Append(nil, s)); got != c.want {
			t.Errorf("%v rendered %q, want %q", c.pieces, got, c.want)
		}
	}
}

// TestVariableInsideActionIsRefused: a value between an action's braces
// would be template source; that is an error saying so.
func TestVariableInsideActionIsRefused(t *testing.T) {
	_, err := CompilePieces([]Piece{{Text: `{{env "`}, {Text: "API_TOKEN", Literal: true}, {Text: `"}}`}}, Scope{}, nil)
	if err == nil || !strings.Contains(err.Error(), "a value is data") {
		t.Errorf("got %v, want the value inside an action refused", err)
	}
}

func TestEnvNames(t *testing.T) {
	got := EnvNames("a {{env \"A\"}} {{ env `B` }} {{envx \"C\"}} {{env \"D\" \"E\"}} {{env \"F\"")
	if !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("EnvNames = %q, want A and B", got)
	}
}

// TestSwapPrefix: a URL's path and query are cut from its compiled
// template, its actions and literal values kept as compiled.
func TestSwapPrefix(t *testing.T) {
	u, err := CompilePieces([]Piece{{Text: "http://h:1/p/"}, {Text: "{{seq}}", Literal: true}, {Text: "?n={{seq}}"}}, Scope{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	path, err := u.SwapPrefix("http://h:1", "")
	if err != nil {
		t.Fatal(err)
	}
	s := NewState(nil, nil)
	s.Next()
	if got := string(path.Append(nil, s)); got != "/p/{{seq}}?n=1" || path.String() != "/p/{{seq}}?n={{seq}}" {
		t.Errorf("path renders %q from %q", got, path.String())
	}
	if _, err := u.SwapPrefix("http://other", "/"); err == nil {
		t.Error("a prefix the template lacks was cut")
	}
}
