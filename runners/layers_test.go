package runners_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers are the module's packages by layer, as docs/architecture.md
// draws them: a package imports only packages of lower layers (and the
// pairs in sameLayer).
var layers = [][]string{
	{"artifacts", "runners/reap", "runners/kube", "runners/demo", "runners/filewatch", "runners/logcount", "runners/runnertest/testbin", "bench/startup"},
	{"runners/tmpl", "artifacts/artifactstest", "artifacts/merge", "artifacts/compare"},
	{"runners/plan", "artifacts/report"},
	{"runners", "runners/watch", "runners/planimport"},
	{"runners/loop", "runners/flow", "runners/action", "runners/reqlog"},
	{"runners/evloop", "runners/probe"},
	{"runners/httpload", "runners/sse", "runners/pgload", "runners/quicload", "runners/spawn", "runners/redisload", "runners/grpcload", "runners/wsload"},
	{"runners/engine", "runners/loads", "runners/shutdown"},
	{"runners/livemetrics", "runners/livemerge", "runners/orchestrate", "runners/runnertest", "runners/pgload/pgtest"},
	{"ui"},
	{"cmd/benchtui"},
	{"examples"}, // the seed plans; its tests run the built cmd/benchtui
}

// sameLayer are the imports allowed within a layer: sse builds on
// httpload's client, redisload reads sse's payload time stamps, wsload
// those and sse's ramp and backoff.
var sameLayer = map[string]string{"runners/sse": "runners/httpload", "runners/redisload": "runners/sse", "runners/wsload": "runners/sse"}

// TestPackageLayers reads the imports of every non-test Go file of the
// module (whatever its build tags) and fails on a package that imports one
// of its own layer or above, or that no layer holds.
func TestPackageLayers(t *testing.T) {
	root, module := moduleRoot(t)
	layerOf := map[string]int{}
	for i, pkgs := range layers {
		for _, p := range pkgs {
			layerOf[p] = i
		}
	}
	imports := moduleImports(t, root, module)
	if len(imports) < 20 {
		t.Fatalf("found only %d packages under %s", len(imports), root)
	}
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		l, ok := layerOf[pkg]
		if !ok {
			t.Errorf("package %s is in no layer: place it in runners/layers_test.go and docs/architecture.md", pkg)
			continue
		}
		for _, imp := range imports[pkg] {
			il, known := layerOf[imp]
			switch {
			case !known:
				t.Errorf("%s imports %s, which is in no layer", pkg, imp)
			case il >= l && sameLayer[pkg] != imp:
				t.Errorf("%s (layer %d) imports %s (layer %d): a package imports only lower layers (docs/architecture.md)", pkg, l, imp, il)
			}
		}
	}
	for p := range layerOf {
		if _, ok := imports[p]; !ok {
			t.Errorf("layer package %s has no Go files: remove it from the layers", p)
		}
	}
}

// moduleRoot finds go.mod above the test's folder and the module's path.
func moduleRoot(t *testing.T) (dir, module string) {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for range 8 {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			for line := range strings.Lines(string(b)) {
				if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
					return dir, strings.TrimSpace(m)
				}
			}
			t.Fatalf("%s/go.mod names no module", dir)
		}
		dir = filepath.Dir(dir)
	}
	t.Fatal("no go.mod above the test's folder")
	return "", ""
}

// moduleImports maps each package of the module (by its path inside the
// module) to the module's packages its non-test files import.
func moduleImports(t *testing.T, root, module string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			if in, ok := strings.CutPrefix(p, module+"/"); ok && !slices.Contains(out[pkg], in) {
				out[pkg] = append(out[pkg], in)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
