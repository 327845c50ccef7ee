package artifacts

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
)

// texts wants every string of v (ids, titles, labels, notes, map keys)
// free of control characters but newlines and tabs: `report` and
// `compare` print them, and an escape sequence in a hostile artifact
// would reach the terminal. The group's config is data (a request body
// may hold any byte) that is compared, never printed: it is left alone.
func (c *checker) texts(path string, v reflect.Value) {
	if c.err != nil {
		return
	}
	switch v.Kind() {
	case reflect.String:
		if i := strings.IndexFunc(v.String(), unsafeRune); i >= 0 {
			c.fail(path, "control character %q at byte %d: no benchtui writes one", []rune(v.String()[i:])[0], i)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			c.texts(path, v.Elem())
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if name := jsonName(t.Field(i)); t.Field(i).IsExported() && !notPrinted[name] {
				c.texts(joinPath(path, name), v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // bytes (an encoded histogram), not text
		}
		for i := range v.Len() {
			c.texts(fmt.Sprintf("%s[%d]", path, i), v.Index(i))
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			key := fmt.Sprint(it.Key())
			c.texts(path+" key", it.Key())
			c.texts(joinPath(path, key), it.Value())
		}
	}
}

// notPrinted are the fields texts leaves alone.
var notPrinted = map[string]bool{"config": true, "config_as_written": true}

func unsafeRune(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" || name == "-" {
		return f.Name
	}
	return name
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
