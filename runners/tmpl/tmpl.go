// Package tmpl is benchtui's request templates: a field of a request (a
// URL, a header value, a body, a QUIC payload) may hold actions such as
// {{uuid}}, {{seq}} or {{.user}} that are filled in for every request.
//
// A template is compiled once, when the plan is validated, into literal
// parts and function parts. Rendering appends them to a caller's buffer
// that the worker reuses, so a request costs no allocation beyond the
// bytes it produces. A field without "{{" compiles to one literal part
// (Static), and runners keep their untemplated path for it.
//
// Values that vary per request come from a State, one per worker: its
// random source, its sequence number and the data row of the request.
// Values fixed for the run ({{env "X"}}) are resolved at compile time.
// Values a flow captured from earlier replies are the State's variables,
// read by {{.name}} as a data column is.
package tmpl

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// Template is a compiled field.
type Template struct {
	src   string
	parts []part
}

// op is what a function part does.
type op uint8

const (
	opLit op = iota
	opUUID
	opSeq
	opNow
	opNowMS
	opRandInt
	opRandChoice
	opColumn
	opVar
	opStep
)

// part is a literal (lit) or a function with its compiled arguments.
type part struct {
	op      op
	lit     string
	lo, n   int64    // rand_int: lowest value and how many values
	choices []string // rand_choice
	col     int      // column: index in the data's columns; var: in the scope's Vars
}

// Columns names a data file's columns for {{.col}} and {{row "col"}};
// nil means the group has no data file.
type Columns []string

func (c Columns) index(name string) (int, error) {
	for i, n := range c {
		if n == name {
			return i, nil
		}
	}
	if c == nil {
		return 0, fmt.Errorf("column %s: the group has no data file (data: {file: …})", artifacts.Excerpt(name))
	}
	return 0, fmt.Errorf("column %s: the data file's columns are %s", artifacts.Excerpt(name), c.listed())
}

// maxColumnsListed bounds the columns a message lists.
const maxColumnsListed = 10

// listed names the first columns, each quoted and cut (artifacts.Excerpt),
// and how many there are in all when that is more: a message never
// echoes a huge header row.
func (c Columns) listed() string {
	names := make([]string, 0, maxColumnsListed)
	for _, n := range c[:min(len(c), maxColumnsListed)] {
		names = append(names, artifacts.Excerpt(n))
	}
	if len(c) > maxColumnsListed {
		return fmt.Sprintf("%s, … (%d in all)", strings.Join(names, ", "), len(c))
	}
	return strings.Join(names, ", ")
}

// Scope is what {{.name}} may read: a data file's columns and the
// variables that a flow's earlier steps captured.
type Scope struct {
	Columns Columns
	// Vars are captured variables, by index in the State (State.SetVar).
	Vars []string
	// Step are the group's step variables (vars:), by index in the
	// State's step values (State.SetStep).
	Step []string
}

// lookup compiles {{.name}}: a captured variable, else a column, else a
// step variable.
func (sc Scope) lookup(name string) (part, error) {
	if i := slices.Index(sc.Vars, name); i >= 0 {
		return part{op: opVar, col: i}, nil
	}
	if i := slices.Index(sc.Step, name); i >= 0 && !slices.Contains(sc.Columns, name) {
		return part{op: opStep, col: i}, nil
	}
	i, err := sc.Columns.index(name)
	if err != nil && len(sc.Vars) > 0 {
		err = fmt.Errorf("%w; the variables captured before this step are %s", err, strings.Join(sc.Vars, ", "))
	}
	if err != nil && len(sc.Step) > 0 {
		err = fmt.Errorf("%w; the group's vars are %s", err, strings.Join(sc.Step, ", "))
	}
	return part{op: opColumn, col: i}, err
}

// Has reports whether s holds a template action.
func Has(s string) bool { return strings.Contains(s, "{{") }

// Compile parses src. getenv resolves {{env "X"}} (nil: os.Getenv).
func Compile(src string, cols Columns, getenv func(string) string) (*Template, error) {
	return CompileScope(src, Scope{Columns: cols}, getenv)
}

// CompileScope parses src, whose {{.name}} actions read sc.
func CompileScope(src string, sc Scope, getenv func(string) string) (*Template, error) {
	return CompilePieces([]Piece{{Text: src}}, sc, getenv)
}

// Piece is a part of a field's source: template text, or a Literal, the
// value of a plan's ${VAR}, which is data: it is never compiled, so
// template syntax in a variable's value is sent as written.
type Piece struct {
	Text    string
	Literal bool
}

// errUnclosed is an action without its closing braces.
var errUnclosed = errors.New("has no closing }}")

// CompilePieces parses a field made of pieces: the text pieces as
// template source, the literal ones as they are. An action opens and
// closes within one text piece: a ${VAR} between the braces of an action
// would make its value template source, and is an error.
func CompilePieces(pieces []Piece, sc Scope, getenv func(string) string) (*Template, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	t := &Template{}
	at := 0
	for i, p := range pieces {
		t.src += p.Text
		if p.Literal {
			t.addLit(p.Text)
		} else if err := t.compileText(p.Text, at, sc, getenv); err != nil {
			if errors.Is(err, errUnclosed) && i < len(pieces)-1 {
				err = fmt.Errorf("%w before a variable's value: a ${VAR} inside {{…}} would make its value template source; a value is data", err)
			}
			return nil, err
		}
		at += len(p.Text)
	}
	return t, nil
}

// compileText appends the parts of template text src, which starts at
// byte at of the field.
func (t *Template) compileText(src string, at int, sc Scope, getenv func(string) string) error {
	rest := src
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			t.addLit(rest)
			return nil
		}
		t.addLit(rest[:i])
		j := strings.Index(rest[i:], "}}")
		if j < 0 {
			return fmt.Errorf("at byte %d: %q %w", at+len(src)-len(rest)+i, rest[i:], errUnclosed)
		}
		p, err := compileAction(rest[i+2:i+j], sc, getenv)
		if err != nil {
			return fmt.Errorf("{{%s}}: %w", rest[i+2:i+j], err)
		}
		if p.op == opLit {
			t.addLit(p.lit)
		} else {
			t.parts = append(t.parts, p)
		}
		rest = rest[i+j+2:]
	}
}

// addLit appends a literal, merged with a literal before it.
func (t *Template) addLit(s string) {
	if s == "" {
		return
	}
	if n := len(t.parts); n > 0 && t.parts[n-1].op == opLit {
		t.parts[n-1].lit += s
		return
	}
	t.parts = append(t.parts, part{op: opLit, lit: s})
}

// Static reports whether t renders the same bytes every time.
func (t *Template) Static() bool {
	return len(t.parts) == 0 || (len(t.parts) == 1 && t.parts[0].op == opLit)
}

// String is t's source.
func (t *Template) String() string { return t.src }

// Literal is what a static template renders (its env values resolved).
func (t *Template) Literal() string {
	if len(t.parts) == 0 {
		return ""
	}
	return t.parts[0].lit
}

// Append renders t for s's current request onto dst.
func (t *Template) Append(dst []byte, s *State) []byte {
	for i := range t.parts {
		p := &t.parts[i]
		switch p.op {
		case opLit:
			dst = append(dst, p.lit...)
		case opUUID:
			dst = s.appendUUID(dst)
		case opSeq:
			dst = strconv.AppendUint(dst, s.seq, 10)
		case opNow:
			dst = time.Now().AppendFormat(dst, time.RFC3339Nano)
		case opNowMS:
			dst = strconv.AppendInt(dst, time.Now().UnixMilli(), 10)
		case opRandInt:
			dst = strconv.AppendInt(dst, p.lo+int64(s.rnd.Uint64N(uint64(p.n))), 10)
		case opRandChoice:
			dst = append(dst, p.choices[s.rnd.IntN(len(p.choices))]...)
		case opColumn:
			dst = append(dst, s.row[p.col]...)
		case opVar:
			if p.col < len(s.vars) {
				dst = append(dst, s.vars[p.col]...)
			}
		case opStep:
			if p.col < len(s.step) {
				dst = append(dst, s.step[p.col]...)
			}
		}
	}
	return dst
}

// Skeleton is src with every action replaced by "x", without compiling
// it: a stand-in for checks of a field's shape (a URL's scheme and host).
func Skeleton(src string) string {
	var b strings.Builder
	for {
		i := strings.Index(src, "{{")
		if i < 0 {
			b.WriteString(src)
			return b.String()
		}
		b.WriteString(src[:i])
		j := strings.Index(src[i:], "}}")
		if j < 0 {
			return b.String()
		}
		b.WriteString("x")
		src = src[i+j+2:]
	}
}

// Skeletons are header values with their actions stood in for (Skeleton),
// for the checks at plan time; what they render is checked per request.
func Skeletons(headers map[string]string) map[string]string {
	out := make(map[string]string, len(headers))
	for k, v := range headers {
		out[k] = Skeleton(v)
	}
	return out
}

// HostTemplated reports whether a URL's scheme or host holds an action:
// runners dial them once, so templates may fill only a path and query.
func HostTemplated(rawURL string) bool {
	_, rest, ok := strings.Cut(rawURL, "://")
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return Has(rawURL) && (!ok || Has(rest))
}

// HostTemplatedProblem is the message for a URL that HostTemplated.
const HostTemplatedProblem = "templates may fill a URL's path and query, not its scheme or host"

// EnvNames are the names that the {{env "NAME"}} actions of template text
// src read, as the compiler reads them; a malformed action is skipped (the
// compiler reports it).
func EnvNames(src string) []string {
	var names []string
	for {
		i := strings.Index(src, "{{")
		if i < 0 {
			return names
		}
		j := strings.Index(src[i:], "}}")
		if j < 0 {
			return names
		}
		words, err := split(strings.TrimSpace(src[i+2 : i+j]))
		if err == nil && len(words) == 2 && words[0] == "env" {
			if name, ok := quoted(words[1]); ok {
				names = append(names, name)
			}
		}
		src = src[i+j+2:]
	}
}

// SwapPrefix is t with the literal prefix old, which t must begin with
// before any action, replaced by new: a URL's path and query cut from its
// compiled template, so that what a variable's value holds stays data.
func (t *Template) SwapPrefix(old, new string) (*Template, error) {
	if !strings.HasPrefix(t.src, old) || (old != "" && (len(t.parts) == 0 || t.parts[0].op != opLit || !strings.HasPrefix(t.parts[0].lit, old))) {
		return nil, fmt.Errorf("%q does not begin with the text %q", t.src, old)
	}
	out := &Template{src: new + t.src[len(old):]}
	out.addLit(new)
	for i, p := range t.parts {
		if i == 0 && p.op == opLit {
			out.addLit(p.lit[len(old):])
			continue
		}
		out.parts = append(out.parts, p)
	}
	return out, nil
}
