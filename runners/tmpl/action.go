package tmpl

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Functions lists the template functions, for messages and docs.
const Functions = `uuid, seq, now, now_ms, rand_int LO HI, rand_choice "a" "b" …, env "NAME", row "col", .col, .captured`

// compileAction compiles the text between {{ and }}.
func compileAction(text string, sc Scope, getenv func(string) string) (part, error) {
	words, err := split(strings.TrimSpace(text))
	if err != nil {
		return part{}, err
	}
	if len(words) == 0 {
		return part{}, errors.New("empty action; want one of " + Functions)
	}
	name, args := words[0], words[1:]
	if s, ok := quoted(name); ok && len(args) == 0 {
		return part{op: opLit, lit: s}, nil // {{"{{"}} writes the braces
	}
	if name, ok := strings.CutPrefix(name, "."); ok && name != "" && len(args) == 0 {
		return sc.lookup(name)
	}
	switch name {
	case "uuid", "seq", "now", "now_ms":
		if len(args) > 0 {
			return part{}, fmt.Errorf("%s takes no arguments", name)
		}
		return part{op: map[string]op{"uuid": opUUID, "seq": opSeq, "now": opNow, "now_ms": opNowMS}[name]}, nil
	case "rand_int":
		return randInt(args)
	case "rand_choice":
		return randChoice(args)
	case "env":
		s, err := oneString(name, args)
		return part{op: opLit, lit: getenv(s)}, err
	case "row":
		s, err := oneString(name, args)
		if err != nil {
			return part{}, err
		}
		i, err := sc.Columns.index(s)
		return part{op: opColumn, col: i}, err
	}
	return part{}, fmt.Errorf("unknown function %q; want one of %s", name, Functions)
}

func randInt(args []string) (part, error) {
	if len(args) != 2 {
		return part{}, errors.New("rand_int takes two whole numbers, LO and HI")
	}
	lo, err1 := strconv.ParseInt(args[0], 10, 64)
	hi, err2 := strconv.ParseInt(args[1], 10, 64)
	switch {
	case err1 != nil || err2 != nil:
		return part{}, fmt.Errorf("rand_int %s %s: want two whole numbers", args[0], args[1])
	case hi < lo:
		return part{}, fmt.Errorf("rand_int %d %d: HI is below LO", lo, hi)
	case hi-lo < 0 || hi-lo == math.MaxInt64: // overflowed, or one more would
		return part{}, fmt.Errorf("rand_int %d %d: the range is too wide", lo, hi)
	}
	return part{op: opRandInt, lo: lo, n: hi - lo + 1}, nil
}

func randChoice(args []string) (part, error) {
	if len(args) == 0 {
		return part{}, errors.New(`rand_choice takes one or more quoted strings: rand_choice "a" "b"`)
	}
	p := part{op: opRandChoice}
	for _, a := range args {
		s, ok := quoted(a)
		if !ok {
			return part{}, fmt.Errorf("rand_choice: %s is not a quoted string", a)
		}
		p.choices = append(p.choices, s)
	}
	return p, nil
}

func oneString(name string, args []string) (string, error) {
	if len(args) == 1 {
		if s, ok := quoted(args[0]); ok {
			return s, nil
		}
	}
	return "", fmt.Errorf(`%s takes one quoted string: %s "NAME"`, name, name)
}

// quoted unquotes a Go string literal ("…" or `…`).
func quoted(w string) (string, bool) {
	if len(w) < 2 || (w[0] != '"' && w[0] != '`') {
		return "", false
	}
	s, err := strconv.Unquote(w)
	return s, err == nil
}

// split cuts an action into words; a quoted string is one word.
func split(s string) ([]string, error) {
	var words []string
	for s = strings.TrimLeft(s, " \t"); s != ""; s = strings.TrimLeft(s, " \t") {
		end := strings.IndexAny(s, " \t")
		if s[0] == '"' || s[0] == '`' {
			end = closingQuote(s)
			if end < 0 {
				return nil, fmt.Errorf("unterminated string %s", s)
			}
		}
		if end < 0 {
			end = len(s)
		}
		words = append(words, s[:end])
		s = s[end:]
	}
	return words, nil
}

// closingQuote is the length of the quoted string s begins with, or -1.
func closingQuote(s string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && q == '"':
			i++
		case s[i] == q:
			return i + 1
		}
	}
	return -1
}
