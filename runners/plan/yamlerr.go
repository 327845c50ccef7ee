package plan

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// syntaxError turns a YAML parser error, which names a line (often the
// start of the block that holds the problem, not the problem) and no
// column, into file:line:column of the likeliest culprit with a hint.
// Lines are looked at from the reported one on; when none looks wrong, the
// parser's own line is kept.
func syntaxError(file string, data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	lines := strings.Split(string(data), "\n")
	if c, ok := culprit(lines, max(line-1, 0), msg); ok {
		return fmt.Errorf("%s:%d:%d: %s (YAML: %s)", file, c.line+1, c.col+1, c.hint, Printable(msg))
	}
	return fmt.Errorf("%s:%d: YAML: %s", file, line, Printable(msg))
}

var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)

// suspect is a place in a plan's text and what to do about it.
type suspect struct {
	line, col int // 0-based
	hint      string
}

// culprit looks for the likeliest cause of the parser's message msg from
// line from on, by the usual mistakes of hand-written YAML.
func culprit(lines []string, from int, msg string) (suspect, bool) {
	checks := []func([]string, int) (suspect, bool){dollarInFlow, tabIndent, dashWithoutSpace, strayIndent}
	switch {
	case strings.Contains(msg, "mapping values are not allowed"):
		checks = append([]func([]string, int) (suspect, bool){colonInValue}, checks...)
	case strings.Contains(msg, "did not find expected ',' or"):
		checks = append(checks, unclosedFlow)
	case strings.Contains(msg, "end of stream"), strings.Contains(msg, "found unexpected end"):
		checks = append(checks, unclosedQuote, unclosedFlow)
	}
	for _, check := range checks {
		if s, ok := check(lines, from); ok {
			return s, true
		}
	}
	return suspect{}, false
}

// dollarInFlow finds an unquoted ${VAR} inside a { } or [ ] on its line:
// its braces end a plain scalar there, so it never parses (the parser
// names the line where the block began, and any later check would find
// a culprit elsewhere). It is sought first, as nothing else explains it.
func dollarInFlow(lines []string, from int) (suspect, bool) {
	for i := from; i < len(lines); i++ {
		depth := 0
		q := unquoted(stripComment(lines[i]))
		for j, r := range q {
			switch {
			case r == '{' || r == '[':
				depth++
			case r == '}' || r == ']':
				depth--
			case r == '$' && depth > 0 && strings.HasPrefix(q[j:], "${"):
				return suspect{i, j, `a ${VAR} inside { } or [ ] must be quoted: "${VAR}"`}, true
			}
		}
	}
	return suspect{}, false
}

// tabIndent finds a tab in a line's indentation: YAML indents with spaces.
func tabIndent(lines []string, from int) (suspect, bool) {
	for i := from; i < len(lines); i++ {
		indent := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], " \t"))]
		if j := strings.IndexByte(indent, '\t'); j >= 0 {
			return suspect{i, j, "a tab in the indentation: YAML indents with spaces"}, true
		}
	}
	return suspect{}, false
}

// dashWithoutSpace finds "-key: value", a list item without its space.
func dashWithoutSpace(lines []string, from int) (suspect, bool) {
	for i := from; i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " ")
		if len(t) > 1 && t[0] == '-' && t[1] != ' ' && t[1] != '-' && strings.Contains(t, ":") {
			return suspect{i, len(lines[i]) - len(t), `a list item needs a space after "-"`}, true
		}
	}
	return suspect{}, false
}

// strayIndent finds the first line indented unlike any block it could
// belong to: deeper than the line before when that line opens no block, or
// back out to a depth no enclosing block has.
func strayIndent(lines []string, from int) (suspect, bool) {
	var open []int // indentation of the enclosing blocks' entries
	prevOpens, prevIndent := true, -1
	scalarAbove, scalarText := -1, -1 // the indent of a `key: |` line, and of its text
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if t == "" || t[0] == '#' {
			continue
		}
		indent := len(l) - len(t)
		if scalarAbove >= 0 && scalarText < 0 && indent > scalarAbove {
			scalarText = indent // a block scalar's first line sets its indentation
		}
		if scalarText >= 0 && indent >= scalarText {
			continue // text of a block scalar
		}
		scalarAbove, scalarText = -1, -1
		popped := false
		for len(open) > 0 && open[len(open)-1] > indent {
			open, popped = open[:len(open)-1], true
		}
		deeper := len(open) == 0 || indent > open[len(open)-1]
		switch {
		case i >= from && deeper && !prevOpens && prevIndent >= 0 && !popped:
			return suspect{i, indent, "indented deeper than the line before, which opens no block: align it with its siblings"}, true
		case i >= from && (popped && deeper || !deeper && open[len(open)-1] != indent):
			return suspect{i, indent, "indented to a depth no enclosing block has: align it with its siblings"}, true
		case deeper:
			open = append(open, indent)
		}
		if rest, ok := strings.CutPrefix(t, "- "); ok { // "- key: v" puts its keys two deeper
			open = append(open, indent+2)
			t = rest
		}
		end := strings.TrimSpace(stripComment(t))
		if blockScalar.MatchString(end) {
			scalarAbove = indent
		}
		prevOpens, prevIndent = strings.HasSuffix(end, ":") || end == "-", indent
	}
	return suspect{}, false
}

var blockScalar = regexp.MustCompile(`:\s+[|>][-+]?\d*$`)

// colonInValue finds "key: text: more", a value holding ": " unquoted.
func colonInValue(lines []string, from int) (suspect, bool) {
	for i := from; i < len(lines) && i <= from+1; i++ {
		t := stripComment(lines[i])
		_, value, ok := strings.Cut(t, ": ")
		if !ok || strings.HasPrefix(strings.TrimSpace(value), `"`) || strings.HasPrefix(strings.TrimSpace(value), "'") ||
			strings.HasPrefix(strings.TrimSpace(value), "{") {
			continue
		}
		if j := strings.Index(value, ": "); j >= 0 {
			return suspect{i, len(t) - len(value) + j, `a value holds ": ": quote it ("…")`}, true
		}
	}
	return suspect{}, false
}

// unclosedFlow finds a line whose { or [ is not closed on it.
func unclosedFlow(lines []string, from int) (suspect, bool) {
	for i := from; i < len(lines); i++ {
		depth, at := 0, -1
		for j, r := range unquoted(stripComment(lines[i])) {
			switch r {
			case '{', '[':
				if depth == 0 {
					at = j
				}
				depth++
			case '}', ']':
				depth--
			}
		}
		if depth > 0 {
			return suspect{i, at, "this { or [ is not closed on its line"}, true
		}
	}
	return suspect{}, false
}

// unclosedQuote finds a line with an odd number of double quotes.
func unclosedQuote(lines []string, from int) (suspect, bool) {
	for i := from; i < len(lines); i++ {
		t := strings.ReplaceAll(lines[i], `\"`, "")
		if strings.Count(t, `"`)%2 == 1 {
			return suspect{i, strings.LastIndex(t, `"`), "this quote is not closed on its line"}, true
		}
	}
	return suspect{}, false
}

// stripComment drops a " #" comment (a # inside quotes is kept).
func stripComment(s string) string {
	q := unquoted(s)
	if j := strings.Index(q, " #"); j >= 0 {
		return s[:j]
	}
	return s
}

// unquoted is s with the text inside quotes blanked out, same length.
func unquoted(s string) string {
	b := []byte(s)
	var in byte
	for i, c := range b {
		switch {
		case in != 0 && c == in:
			in = 0
		case in != 0:
			b[i] = ' '
		case c == '"' || c == '\'':
			in = c
		}
	}
	return string(b)
}
