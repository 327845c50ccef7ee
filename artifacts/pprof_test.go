package artifacts_test

import (
	"testing"

	"github.com/benchtui/benchtui/artifacts"
)

func TestShortFunction(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/benchtui/benchtui/runners/demo.slowPath":     "demo.slowPath",
		"github.com/benchtui/benchtui/runners/demo.(*H).leak":    "demo.(*H).leak",
		"gopkg.in/yaml.v3.(*parser).parse":                       "yaml.v3.(*parser).parse",
		"example.com/a.F[go.shape.struct { X example.com/b.T }]": "a.F[go.shape.struct { X example.com/b.T }]",
		"runtime.mallocgc": "runtime.mallocgc",
	} {
		if got := artifacts.ShortFunction(in); got != want {
			t.Errorf("ShortFunction(%q) = %q, want %q", in, got, want)
		}
	}
}
