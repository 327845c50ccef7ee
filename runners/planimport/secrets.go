package planimport

import (
	"fmt"
	"slices"
	"strings"
)

// secretParts make a header, query parameter or form field a secret when
// its name holds one (any case); secretWords when its name has one as a
// word of its own (X-Api-Key, sig, but not keyword or author).
var (
	secretParts = []string{"token", "secret", "password", "passwd", "apikey", "credential", "cookie", "authorization", "signature", "session", "sessid"}
	secretWords = []string{"auth", "key", "pwd", "sig", "sid", "jwt"}
)

// planSecretWords are the words that make the plan treat a ${VAR} as a
// secret (docs/plan.md, Secrets): a variable's name holds one.
var planSecretWords = []string{"PASSWORD", "PASSWD", "TOKEN", "SECRET", "KEY", "AUTHORIZATION", "COOKIE"}

// isSecretName says whether a header, parameter or field so named holds
// a secret.
func isSecretName(name string) bool {
	low := strings.ToLower(name)
	if slices.ContainsFunc(secretParts, func(w string) bool { return strings.Contains(low, w) }) {
		return true
	}
	words := strings.FieldsFunc(low, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') })
	return slices.ContainsFunc(words, func(w string) bool { return slices.Contains(secretWords, w) })
}

// secrets gives each distinct secret value a variable and remembers
// where it was, for the plan's comment; it never keeps the value past
// the import.
type secrets struct {
	byValue map[string]string // value → name
	vars    []secretVar
}

// secretVar is one variable the plan reads and where its value was.
type secretVar struct {
	Name  string
	Where []string
}

// ref is the ${NAME} that stands for value, a variable named after base
// (upper case, made a plan secret's name); where says what held it.
func (s *secrets) ref(base, value, where string) string {
	if s.byValue == nil {
		s.byValue = map[string]string{}
	}
	name, ok := s.byValue[value]
	if !ok {
		name = s.newName(varName(base))
		s.byValue[value] = name
		s.vars = append(s.vars, secretVar{Name: name})
	}
	for i := range s.vars {
		if s.vars[i].Name == name && !slices.Contains(s.vars[i].Where, where) && len(s.vars[i].Where) < 8 {
			s.vars[i].Where = append(s.vars[i].Where, where)
		}
	}
	return "${" + name + "}"
}

// newName is name, or name_2, name_3… when taken.
func (s *secrets) newName(name string) string {
	taken := func(n string) bool {
		return slices.ContainsFunc(s.vars, func(v secretVar) bool { return v.Name == n })
	}
	if !taken(name) {
		return name
	}
	for i := 2; ; i++ {
		if n := fmt.Sprintf("%s_%d", name, i); !taken(n) {
			return n
		}
	}
}

// varName is base as a variable's name: letters, digits and _, upper
// case, holding a word that makes the plan treat it as a secret.
func varName(base string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, base)
	name = strings.Trim(name, "_")
	if len(name) > 40 {
		name = name[:40]
	}
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		name = "V_" + name
	}
	if !slices.ContainsFunc(planSecretWords, func(w string) bool { return strings.Contains(name, w) }) {
		name += "_SECRET"
	}
	return name
}
