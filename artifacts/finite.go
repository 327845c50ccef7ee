package artifacts

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
)

// SanitizeFloats replaces every NaN and ±Inf in a, which JSON cannot
// hold, by 0, so that no figure a runner got wrong loses the artifact.
// It returns "" when a had none; else a note naming how many and the
// first of them by JSON path, which it also appends to a's Notes. Write
// and WriteFramed call it: a caller calls it first to show the note too.
func SanitizeFloats(a *Artifact) string {
	var s floatSanitizer
	s.walk("", reflect.ValueOf(a).Elem())
	if len(s.paths) == 0 {
		return ""
	}
	shown := s.paths[:min(len(s.paths), maxPathsShown)]
	more := ""
	if len(s.paths) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(s.paths)-len(shown))
	}
	note := fmt.Sprintf("%d non-finite figures (NaN or Inf) written as 0: %s%s",
		len(s.paths), strings.Join(shown, ", "), more)
	a.Notes = append(a.Notes, note)
	return note
}

// maxPathsShown bounds the paths a SanitizeFloats note names.
const maxPathsShown = 5

// floatSanitizer walks a value and keeps the JSON path of each non-finite
// float it replaced.
type floatSanitizer struct{ paths []string }

// walk zeroes the non-finite floats under v. v itself may be
// unaddressable (a map's value, an interface's content): then walk
// returns the fixed copy to put in its place and true.
func (s *floatSanitizer) walk(path string, v reflect.Value) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			s.paths = append(s.paths, path)
			return s.replace(v, reflect.Zero(v.Type()))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			s.walk(path, v.Elem())
		}
	case reflect.Interface:
		if !v.IsNil() {
			if fixed, ok := s.walk(path, v.Elem()); ok {
				return s.replace(v, fixed)
			}
		}
	case reflect.Struct, reflect.Array:
		return s.walkFields(path, v)
	case reflect.Slice:
		for i := range v.Len() {
			s.walk(fmt.Sprintf("%s[%d]", path, i), v.Index(i))
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			if fixed, ok := s.walk(joinPath(path, fmt.Sprint(k)), v.MapIndex(k)); ok {
				v.SetMapIndex(k, fixed)
			}
		}
	}
	return v, false
}

// walkFields walks a struct's exported, encoded fields or an array's
// elements, in a copy when v cannot be set in place.
func (s *floatSanitizer) walkFields(path string, v reflect.Value) (reflect.Value, bool) {
	c := v
	if !v.CanSet() {
		c = reflect.New(v.Type()).Elem()
		c.Set(v)
	}
	n := len(s.paths)
	if v.Kind() == reflect.Array {
		for i := range c.Len() {
			s.walk(fmt.Sprintf("%s[%d]", path, i), c.Index(i))
		}
	} else {
		for i := range c.NumField() {
			f := c.Type().Field(i)
			if f.IsExported() && f.Tag.Get("json") != "-" {
				s.walk(joinPath(path, jsonName(f)), c.Field(i))
			}
		}
	}
	return c, len(s.paths) > n && !v.CanSet()
}

// replace sets v to fixed where it lies, or returns fixed for the caller
// to put in v's place.
func (s *floatSanitizer) replace(v, fixed reflect.Value) (reflect.Value, bool) {
	if v.CanSet() {
		v.Set(fixed)
		return v, false
	}
	out := reflect.New(v.Type()).Elem()
	out.Set(fixed)
	return out, true
}

// RoundTo is v rounded half up to a multiple of 1/scale (scale 1000:
// thousandths), as figures are kept.
func RoundTo(v, scale float64) float64 { return float64(int64(v*scale+0.5)) / scale }
