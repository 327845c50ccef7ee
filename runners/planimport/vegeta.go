package planimport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// vegetaJSONTarget is a line of vegeta's JSON targets format.
type vegetaJSONTarget struct {
	Method string              `json:"method"`
	URL    string              `json:"url"`
	Body   []byte              `json:"body"` // base64
	Header map[string][]string `json:"header"`
}

// Vegeta reads vegeta's targets: its JSON format (a target object per
// line) when the first non-blank byte is '{', else its http format
// (METHOD URL, header lines, an optional @body-file line, targets apart by
// blank lines; # starts a comment). A body file is read relative to the
// targets file's folder, at most MaxBodyBytes.
func Vegeta(name string, data []byte) (*Imported, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return vegetaJSON(name, data)
	}
	return vegetaHTTP(name, data)
}

func vegetaJSON(name string, data []byte) (*Imported, error) {
	imp := &Imported{Source: "vegeta " + name, File: name}
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var t vegetaJSONTarget
		if err := json.Unmarshal(line, &t); err != nil {
			e := jsonError(name, line, err).(*Error)
			e.Line = i + 1
			return nil, e
		}
		r := Request{Method: t.Method, URL: t.URL, Body: t.Body, Where: fmt.Sprintf("line %d", i+1), line: i + 1}
		for _, k := range slices.Sorted(maps.Keys(t.Header)) {
			for _, v := range t.Header[k] {
				r.Headers = append(r.Headers, Header{Name: k, Value: v})
			}
		}
		if err := imp.add(r, name); err != nil {
			return nil, err
		}
	}
	return imp.nonEmpty(name)
}

var vegetaMethod = regexp.MustCompile(`^[A-Z]+\s`)

func vegetaHTTP(name string, data []byte) (*Imported, error) {
	imp := &Imported{Source: "vegeta " + name, File: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var cur *Request
	lineNo := 0
	flush := func() error {
		if cur == nil {
			return nil
		}
		err := imp.add(*cur, name)
		cur = nil
		return err
	}
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
			if err := flush(); err != nil {
				return nil, err
			}
		case strings.HasPrefix(line, "#"):
		case vegetaMethod.MatchString(line):
			if err := flush(); err != nil {
				return nil, err
			}
			method, u, _ := strings.Cut(line, " ")
			cur = &Request{Method: method, URL: strings.TrimSpace(u), Where: fmt.Sprintf("line %d", lineNo), line: lineNo}
		case cur == nil:
			return nil, &Error{File: name, Line: lineNo, Field: "target", Msg: fmt.Sprintf("want METHOD URL, got %q", clip(line))}
		case strings.HasPrefix(line, "@"):
			body, err := readBodyFile(name, line[1:])
			if err != nil {
				return nil, &Error{File: name, Line: lineNo, Field: "body", Msg: err.Error()}
			}
			cur.Body = body
		default:
			k, v, ok := strings.Cut(line, ":")
			if k, v = strings.TrimSpace(k), strings.TrimSpace(v); !ok || k == "" || v == "" {
				return nil, &Error{File: name, Line: lineNo, Field: "header", Msg: fmt.Sprintf("want Name: value, got %q", clip(line))}
			}
			if badHeaderName(k) {
				return nil, &Error{File: name, Line: lineNo, Field: "header", Msg: fmt.Sprintf("%q is not a header name", clip(k))}
			}
			cur.Headers = append(cur.Headers, Header{Name: k, Value: v})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{File: name, Line: lineNo + 1, Msg: err.Error()}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return imp.nonEmpty(name)
}

// readBodyFile reads a target's @body-file, relative to the targets
// file's folder, at most MaxBodyBytes.
func readBodyFile(targets, path string) ([]byte, error) {
	if !filepath.IsAbs(path) && targets != "-" {
		path = filepath.Join(filepath.Dir(targets), path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxBodyBytes {
		return nil, fmt.Errorf("%s: want a regular file of at most %d bytes", path, MaxBodyBytes)
	}
	return os.ReadFile(path)
}

// add appends r, checked, to imp.
func (imp *Imported) add(r Request, name string) error {
	if len(imp.Requests) >= MaxRequests {
		return &Error{File: name, Line: r.line, Msg: fmt.Sprintf("more than %d targets: not imported", MaxRequests)}
	}
	if field, msg := r.check(); field != "" {
		return r.problem(name, field, msg)
	}
	imp.Requests = append(imp.Requests, r)
	return nil
}

func (imp *Imported) nonEmpty(name string) (*Imported, error) {
	if len(imp.Requests) == 0 {
		return nil, &Error{File: name, Msg: "no targets"}
	}
	return imp, nil
}
