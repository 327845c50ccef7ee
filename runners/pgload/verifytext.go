package pgload

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// verifyAction matches an action of a verify entry's text: {{requests}},
// {{ .N }}, {{- errors -}}; group 1 is what is inside the braces.
var verifyAction = regexp.MustCompile(`\{\{-?\s*(.*?)\s*-?\}\}`)

// countOf is the value of a count a verify text may read, by name.
var countOf = map[string]func(runners.Summary) int64{
	"requests":       func(s runners.Summary) int64 { return s.Requests },
	"errors":         func(s runners.Summary) int64 { return s.Errors },
	"group.requests": func(s runners.Summary) int64 { return s.GroupRequests },
	"group.errors":   func(s runners.Summary) int64 { return s.GroupErrors },
}

// expandVerify fills a verify entry's text (its sql, expect or limits):
// {{requests}} and {{errors}} with the step's counts, {{group.requests}}
// and {{group.errors}} with the group's so far (the steps before and this
// one), {{by_name.NAME.requests}} and {{by_name.NAME.errors}} with a named
// request's (or load's) in the step, each optionally times a whole number
// ({{40 * by_name.events.requests}}), or a sum of those
// ({{40 * by_name.a.requests + 20 * by_name.b.requests}}: countAction), {{.N}} with the step's
// value of var N. It is one pass over the
// text as written: a value is data, never read for actions itself.
func expandVerify(s string, sum runners.Summary) string {
	return strings.TrimSpace(expandRaw(s, sum))
}

// expandRaw is expandVerify without the trimming: a command's argument
// or a request's body keeps its spaces.
func expandRaw(s string, sum runners.Summary) string {
	return verifyAction.ReplaceAllStringFunc(s, func(action string) string {
		name := verifyAction.FindStringSubmatch(action)[1]
		if n, known, ok := countAction(name, sum); known {
			if !ok {
				return action // a by_name count the step lacks: its limit fails, naming it
			}
			return strconv.FormatInt(n, 10)
		}
		if v, ok := sum.Vars[strings.TrimPrefix(name, ".")]; ok && strings.HasPrefix(name, ".") {
			return v
		}
		return action // validation refuses it (verifyTextProblem)
	})
}

// verifyTextProblem reports the first action of s that is neither a
// count nor one of vars ({{.N}}), as a plan error at at under key.
func verifyTextProblem(s string, vars []string, at plan.Pos, key string) error {
	for _, m := range verifyAction.FindAllStringSubmatch(s, -1) {
		name, isVar := strings.CutPrefix(m[1], ".")
		if countTerms(m[1]) != nil || isVar && slices.Contains(vars, name) {
			continue
		}
		return plan.Errorf(at, key, "%s: a verify entry reads {{requests}}, {{errors}}, {{group.requests}}, {{group.errors}}, {{by_name.NAME.requests}}, {{by_name.NAME.errors}} (each may be times a whole number: {{40 * requests}}; a sum of them: {{requests + errors}}) and the group's vars ({{.N}})%s",
			m[0], varsNamed(vars))
	}
	return nil
}

// varsNamed names a group's vars for a message: "" without any.
func varsNamed(vars []string) string {
	if len(vars) == 0 {
		return "; the group has no vars"
	}
	return fmt.Sprintf("; the group's vars are %s", strings.Join(vars, ", "))
}

// texts are the entry's texts that read counts and vars, by key: its
// sql, expect and limits, its http url, body and header values, and its
// command's arguments.
func (v Verify) texts() [][2]string {
	texts := [][2]string{{"sql", v.SQL}, {"expect", v.Expect}}
	if op, limits, err := v.Operator(); err == nil && op != "" {
		for i, l := range limits {
			k := op
			if len(limits) > 1 {
				k = fmt.Sprintf("%s[%d]", op, i)
			}
			texts = append(texts, [2]string{k, l})
		}
	}
	if h := v.HTTP; h != nil {
		texts = append(texts, [2]string{"http.url", h.URL}, [2]string{"http.body", h.Body})
		for _, name := range slices.Sorted(maps.Keys(h.Headers)) {
			texts = append(texts, [2]string{"http.headers." + name, h.Headers[name]})
		}
	}
	for i, arg := range v.Command {
		texts = append(texts, [2]string{fmt.Sprintf("command[%d]", i), arg})
	}
	return texts
}

// textProblems reports the problems of the entry's texts for a group
// whose vars are vars.
func (v Verify) textProblems(vars []string, at plan.Pos, key string) []error {
	var errs []error
	for _, t := range v.texts() {
		if err := verifyTextProblem(t[1], vars, at, key+"."+t[0]); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// expanded is the entry with its source's texts filled (expandVerify):
// its sql, http url, body and header values, and its command's
// arguments. Expect and limits are filled where they are judged.
func (v Verify) expanded(sum runners.Summary) Verify {
	v.SQL = expandVerify(v.SQL, sum)
	if v.HTTP != nil {
		h := *v.HTTP
		h.URL, h.Body = expandVerify(h.URL, sum), expandRaw(h.Body, sum)
		h.Headers = make(map[string]string, len(v.HTTP.Headers))
		for name, value := range v.HTTP.Headers {
			h.Headers[name] = expandVerify(value, sum)
		}
		v.HTTP = &h
	}
	if len(v.Command) > 0 {
		argv := make([]string, len(v.Command))
		for i, arg := range v.Command {
			argv[i] = expandRaw(arg, sum)
		}
		v.Command = argv
	}
	return v
}
