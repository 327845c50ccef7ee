package plan

import (
	"strings"
	"testing"
)

// TestSyntaxErrorsNameTheCulprit: the usual mistakes of hand-written YAML
// are reported at their own line and column with a hint, not at the line
// of the block the parser was in.
func TestSyntaxErrorsNameTheCulprit(t *testing.T) {
	head := "version: 1\ngroups:\n  - id: a\n    runner: sleep\n"
	cases := []struct{ name, tail, want string }{
		{"stray indent", "  - id: b\n   runner: sleep\n    load: {}\n", "plan.yaml:6:4: indented to a depth no enclosing block has"},
		{"tab", "\tduration: 1s\n", "plan.yaml:5:1: a tab in the indentation"},
		{"colon in value", "    title: bad: colon\n", `plan.yaml:5:15: a value holds ": ": quote it`},
		{"unclosed brace", "    sleep: {delay: 1ms\n    load: {concurrency: 1}\n", "plan.yaml:5:12: this { or [ is not closed"},
		{"deeper after a value", "      load: {concurrency: 1}\n", "plan.yaml:5:7: indented deeper than the line before"},
		{"unclosed quote", "    title: \"unclosed\n    load: {concurrency: 1}\n", "plan.yaml:5:12: this quote is not closed"},
		{"dash without space", "  -id: b\n", `plan.yaml:5:3: a list item needs a space after "-"`},
		// A flow mapping over two lines below used to take the blame.
		{"dollar in a flow mapping", "    load: {concurrency: ${C:-5}}\n    duration: 1s\n  - id: b\n    runner: sleep\n    sleep: {delay: 1ms,\n        fail: 2}\n", `plan.yaml:5:25: a ${VAR} inside { } or [ ] must be quoted`},
		{"dollar in a flow sequence", "    sweep: {concurrency: [10, ${C:-5}]}\n    duration: 1s\n", `plan.yaml:5:31: a ${VAR} inside { } or [ ] must be quoted`},
		{"after a block scalar", "    title: |\n      any text\n          deeper text: here\n      more\n     load: {}\n", "plan.yaml:9:6: indented "},
	}
	for _, c := range cases {
		_, err := ParsePlan("plan.yaml", []byte(head+c.tail), env(nil), testSchema{})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !strings.Contains(err.Error(), "(YAML: ") {
			t.Errorf("%s: %v\nwant %q…", c.name, err, c.want)
		}
	}
}
