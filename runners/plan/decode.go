package plan

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// decoder turns a YAML node tree into Go values strictly: unknown keys,
// wrong types, bad durations and missing required fields are errors at the
// node's line and column. Unlike yaml.v3's own Decode, it keeps going after
// a problem, so a file's problems are all reported at once.
type decoder struct {
	file    string
	schema  Schema
	written []map[string]any // the groups as written, before ${VAR} expansion
	// shown holds, for each scalar that received a secret ${VAR}, its
	// value with the secret redacted.
	shown map[*yaml.Node]string
	errs  []error
}

var (
	durationType = reflect.TypeOf(Duration{})
	posType      = reflect.TypeOf(Pos{})
	operandType  = reflect.TypeOf(Operand{})
)

func (d *decoder) pos(n *yaml.Node) Pos { return Pos{File: d.file, Line: n.Line, Column: n.Column} }

// errorf records a problem at n. When n received a secret, its value is
// replaced in the message by the value as shown.
func (d *decoder) errorf(n *yaml.Node, key, format string, args ...any) {
	err := Errorf(d.pos(n), key, format, args...).(*PosError)
	if shown, ok := d.shown[n]; ok {
		err.Msg = strings.ReplaceAll(err.Msg, strconv.Quote(n.Value), strconv.Quote(shown))
		err.Msg = strings.ReplaceAll(err.Msg, n.Value, shown)
	}
	d.errs = append(d.errs, err)
}

// decode fills v (addressable) from n; key names the value for messages.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, key string) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" && v.Kind() != reflect.Pointer {
		return
	}
	switch {
	case v.Type() == durationType:
		d.duration(n, v, key)
	case v.Type() == operandType:
		d.operand(n, v.Addr().Interface().(*Operand), key)
	case v.Kind() == reflect.Pointer:
		if n.Tag == "!!null" {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		d.decode(n, v.Elem(), key)
	case v.Kind() == reflect.Struct:
		d.structure(n, v, key, nil)
	case v.Kind() == reflect.Slice:
		d.slice(n, v, key)
	case v.Kind() == reflect.Map:
		d.mapping(n, v, key)
	case v.Kind() == reflect.Interface:
		var x any
		if err := n.Decode(&x); err != nil {
			d.errorf(n, key, "%v", err)
			return
		}
		v.Set(reflect.ValueOf(&x).Elem())
	default:
		d.scalar(n, v, key)
	}
}

func (d *decoder) duration(n *yaml.Node, v reflect.Value, key string) {
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, key, "want a duration such as 250ms, 5s or 2m")
		return
	}
	dur, err := time.ParseDuration(n.Value)
	if err != nil || dur < 0 {
		d.errorf(n, key, "bad duration %q: want a duration such as 250ms, 5s or 2m", n.Value)
		return
	}
	v.Set(reflect.ValueOf(Duration{dur}))
}

// operand decodes a check's limit: a scalar as written, or a mapping
// naming another figure.
func (d *decoder) operand(n *yaml.Node, o *Operand, key string) {
	switch n.Kind {
	case yaml.ScalarNode:
		o.Value = n.Value
	case yaml.MappingNode:
		o.Ref = &FigureRef{}
		d.structure(n, reflect.ValueOf(o.Ref).Elem(), key, nil)
	default:
		d.errorf(n, key, "want a number, a duration or another figure ({figure: NAME, times: …}), got a %s", kindName(n))
	}
}

func (d *decoder) scalar(n *yaml.Node, v reflect.Value, key string) {
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, key, "want a %s, got a %s", typeName(v.Type()), kindName(n))
		return
	}
	var err error
	switch v.Kind() {
	case reflect.String:
		v.SetString(n.Value)
	case reflect.Bool:
		var b bool
		b, err = strconv.ParseBool(n.Value)
		v.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		var i int64
		i, err = strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 10, 64)
		v.SetInt(i)
	case reflect.Float64, reflect.Float32:
		var f float64
		f, err = strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		v.SetFloat(f)
	default:
		err = fmt.Errorf("unsupported type %s", v.Type())
	}
	if err != nil {
		d.errorf(n, key, "want a %s, got %q", typeName(v.Type()), n.Value)
	}
}

func (d *decoder) slice(n *yaml.Node, v reflect.Value, key string) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, key, "want a list, got a %s", kindName(n))
		return
	}
	out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, out.Index(i), fmt.Sprintf("%s[%d]", key, i))
	}
	v.Set(out)
}

func (d *decoder) mapping(n *yaml.Node, v reflect.Value, key string) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, key, "want a mapping, got a %s", kindName(n))
		return
	}
	out := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		elem := reflect.New(v.Type().Elem()).Elem()
		d.decode(val, elem, joinKey(key, k.Value))
		out.SetMapIndex(reflect.ValueOf(k.Value).Convert(v.Type().Key()), elem)
	}
	v.Set(out)
}

// structure decodes a mapping into a struct by its yaml tags. extra, when
// set, is offered each key the struct does not know; it returns false for
// keys it does not know either.
func (d *decoder) structure(n *yaml.Node, v reflect.Value, key string, extra func(k, val *yaml.Node) bool) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, key, "want a mapping, got a %s", kindName(n))
		return
	}
	fields, required := structFields(v.Type())
	if f := v.FieldByName("Pos"); f.IsValid() && f.Type() == posType && f.CanSet() {
		f.Set(reflect.ValueOf(d.pos(n))) // where the entry starts (an action's, say)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		name := k.Value
		if seen[name] {
			d.errorf(k, joinKey(key, name), "given twice")
		}
		seen[name] = true
		if idx, ok := fields[name]; ok {
			d.decode(val, v.FieldByIndex(idx), joinKey(key, name))
			continue
		}
		if extra == nil || !extra(k, val) {
			d.errorf(k, joinKey(key, name), "unknown key (known: %s)", knownKeys(fields))
		}
	}
	for _, name := range required {
		if !seen[name] {
			d.errorf(n, joinKey(key, name), "missing (required)")
		}
	}
	if f, ok := v.Type().FieldByName("Pos"); ok && f.Type == posType && f.Tag.Get("yaml") == "-" {
		v.FieldByIndex(f.Index).Set(reflect.ValueOf(d.pos(n))) // where the mapping starts, for messages
	}
}

// structFields maps the yaml keys of t to their fields' indexes; the keys
// of a struct field tagged `yaml:",inline"` are t's own.
func structFields(t reflect.Type) (map[string][]int, []string) {
	fields := map[string][]int{}
	var required []string
	for i := range t.NumField() {
		tag := t.Field(i).Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" && opts == "inline" && t.Field(i).Type.Kind() == reflect.Struct {
			inner, req := structFields(t.Field(i).Type)
			for k, idx := range inner {
				fields[k] = append([]int{i}, idx...)
			}
			required = append(required, req...)
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		fields[name] = []int{i}
		if opts == "required" {
			required = append(required, name)
		}
	}
	return fields, required
}

func knownKeys(fields map[string][]int) string {
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sortStrings(names)
	return strings.Join(names, ", ")
}

func joinKey(parent, k string) string {
	if parent == "" {
		return k
	}
	return parent + "." + k
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "whole number"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.Bool:
		return "true or false"
	}
	return t.Kind().String()
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "scalar " + strconv.Quote(n.Value)
}
