package artifacts

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// The artifact's JSON shape, read from its Go types (Artifact and what it
// holds) by reflection: the JSON Schema in docs/artifact.schema.json is
// generated from it (schema_json_test.go) and docs/artifact.md must name
// every field path it has (schema_doc_test.go), so neither can drift from
// the code.

// jsonField is one field of a struct as encoding/json writes it.
type jsonField struct {
	name      string
	omitempty bool
	typ       reflect.Type
}

// jsonFields are t's fields as encoding/json sees them: exported, not
// tagged "-", in declaration order. Embedded structs are refused: the
// artifact has none, and their promotion rules are not modelled here.
func jsonFields(t reflect.Type) ([]jsonField, error) {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous {
			return nil, fmt.Errorf("%s.%s: embedded fields are not modelled", t.Name(), f.Name)
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, omitempty: slices.Contains(strings.Split(opts, ","), "omitempty"), typ: f.Type})
	}
	return out, nil
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	probePoint    = reflect.TypeFor[ProbePoint]()
)

// jsonPaths lists every field path of t as docs/artifact.md writes them:
// `steps[].target.rss_mb.start`, a slice's elements as `[]` and a map's
// values as `*` (`steps[].by_name.*.requests`). A struct type met again
// (TargetStats in `steps[].targets.*`, `steps[].self`) is not walked
// again: its fields are listed once, under the first path that holds it.
func jsonPaths(t reflect.Type) ([]string, error) {
	var out []string
	seen := map[reflect.Type]bool{}
	var walk func(prefix string, t reflect.Type, depth int) error
	walk = func(prefix string, t reflect.Type, depth int) error {
		if depth > 16 {
			return fmt.Errorf("%s: types nest too deep", prefix)
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case t == timeType, t == probePoint:
			return nil
		case t.Kind() == reflect.Slice:
			return walk(prefix+"[]", t.Elem(), depth+1)
		case t.Kind() == reflect.Map:
			return walk(prefix+".*", t.Elem(), depth+1)
		case t.Kind() != reflect.Struct, seen[t]:
			return nil
		}
		seen[t] = true
		fields, err := jsonFields(t)
		if err != nil {
			return err
		}
		for _, f := range fields {
			p := f.name
			if prefix != "" {
				p = prefix + "." + f.name
			}
			out = append(out, p)
			if err := walk(p, f.typ, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	err := walk("", t, 0)
	return out, err
}

// schemaGen builds a JSON Schema (draft 2020-12) of a Go type as
// encoding/json writes it: each named struct once, under $defs.
type schemaGen struct {
	defs map[string]any
}

// artifactSchema is the JSON Schema of Artifact, the document
// docs/artifact.schema.json holds.
func artifactSchema() (map[string]any, error) {
	g := &schemaGen{defs: map[string]any{}}
	root, err := g.structSchema(reflect.TypeFor[Artifact]())
	if err != nil {
		return nil, err
	}
	root["properties"].(map[string]any)["schema"] = map[string]any{"const": Schema}
	doc := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "https://github.com/benchtui/benchtui/docs/artifact.schema.json",
		"title":       Schema,
		"description": "One benchtui artifact: a bench group's results for one run. Generated from the Go types in artifacts/ (go test ./artifacts -run TestArtifactSchemaFile -update-schema); the fields' meanings are in docs/artifact.md.",
	}
	for k, v := range root {
		doc[k] = v
	}
	doc["$defs"] = g.defs
	return doc, nil
}

// of is the schema of a value of type t; nullable says encoding/json may
// write it as null (a nil slice, map or pointer not left out by omitempty).
func (g *schemaGen) of(t reflect.Type, nullable bool) (map[string]any, error) {
	if t.Kind() == reflect.Pointer {
		return g.of(t.Elem(), nullable)
	}
	var s map[string]any
	switch {
	case t == timeType:
		s = map[string]any{"type": "string", "format": "date-time"}
	case t == probePoint:
		s = map[string]any{"type": "array", "minItems": 2, "items": false, "prefixItems": []any{
			map[string]any{"type": "number"}, map[string]any{"type": []any{"number", "null"}}}}
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType):
		return nil, fmt.Errorf("%s writes its own JSON: teach schema_gen_test.go its shape", t)
	case t.Kind() == reflect.Struct:
		if t.Name() == "" {
			return nil, fmt.Errorf("anonymous struct %s: name it", t)
		}
		if _, ok := g.defs[t.Name()]; !ok {
			g.defs[t.Name()] = nil // mark first: a type may hold itself
			def, err := g.structSchema(t)
			if err != nil {
				return nil, err
			}
			g.defs[t.Name()] = def
		}
		return map[string]any{"$ref": "#/$defs/" + t.Name()}, nil
	case t.Kind() == reflect.Slice:
		items, err := g.nullable(t.Elem())
		if err != nil {
			return nil, err
		}
		s = map[string]any{"type": nullOr("array", nullable), "items": items}
	case t.Kind() == reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("%s: only string keys are modelled", t)
		}
		values, err := g.nullable(t.Elem())
		if err != nil {
			return nil, err
		}
		s = map[string]any{"type": nullOr("object", nullable)}
		if t.Elem().Kind() != reflect.Interface {
			s["additionalProperties"] = values
		}
	case t.Kind() == reflect.Interface:
		return map[string]any{}, nil
	case t.Kind() == reflect.String:
		s = map[string]any{"type": "string"}
	case t.Kind() == reflect.Bool:
		s = map[string]any{"type": "boolean"}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		s = map[string]any{"type": "integer"}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		s = map[string]any{"type": "number"}
	default:
		return nil, fmt.Errorf("%s: kind %s is not modelled", t, t.Kind())
	}
	return s, nil
}

// structSchema is the schema of a struct: its fields as properties, those
// without omitempty required, no others allowed.
func (g *schemaGen) structSchema(t reflect.Type) (map[string]any, error) {
	fields, err := jsonFields(t)
	if err != nil {
		return nil, err
	}
	props := map[string]any{}
	required := []any{}
	for _, f := range fields {
		s, err := g.of(f.typ, false)
		if !f.omitempty {
			s, err = g.nullable(f.typ)
		}
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t.Name(), f.name, err)
		}
		props[f.name] = s
		if !f.omitempty {
			required = append(required, f.name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}, nil
}

// nullable is the schema of a value of type t that is never left out: a
// nil slice, map or pointer is written as null.
func (g *schemaGen) nullable(t reflect.Type) (map[string]any, error) {
	k := t.Kind()
	null := k == reflect.Slice || k == reflect.Map || k == reflect.Pointer
	s, err := g.of(t, null)
	if err == nil && null && s["$ref"] != nil {
		s = map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	}
	return s, err
}

// nullOr is kind, or kind or null when nullable.
func nullOr(kind string, nullable bool) any {
	if nullable {
		return []any{kind, "null"}
	}
	return kind
}
