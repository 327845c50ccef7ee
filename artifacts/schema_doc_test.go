package artifacts

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestArtifactDocNamesEveryField fails naming each JSON field path of the
// artifact (its Go types, walked by jsonPaths) that docs/artifact.md does
// not mention, so a field added to the types without a word in the doc
// fails here.
//
// A path is mentioned when the doc writes it in backticks, whole
// (`steps[].target.rss_mb`) or completed by its context: the backticked
// path of the section's heading (`rss_mb` under "## `steps[].target`"),
// and names written earlier on the same line (`shards[]` … `{"index",
// "file"}` in one table row). Slices' `[]`, a map's `*` and its keys
// written in capitals (`by_name.NAME`) are left out of the comparison.
func TestArtifactDocNamesEveryField(t *testing.T) {
	paths, err := jsonPaths(reflect.TypeFor[Artifact]())
	if err != nil {
		t.Fatal(err)
	}
	mentioned := docMentions(t, filepath.Join("..", "docs", "artifact.md"))
	if len(mentioned) < 100 {
		t.Fatalf("docs/artifact.md mentions only %d paths: is the parser broken?", len(mentioned))
	}
	var missing []string
	for _, p := range paths {
		if !mentioned[normalPath(p)] {
			missing = append(missing, p)
		}
	}
	for _, p := range missing {
		t.Errorf("docs/artifact.md does not mention %s", p)
	}
	if len(missing) > 0 {
		t.Logf("%d of %d field paths undocumented: add each to docs/artifact.md (what it means, its unit, when it is absent)", len(missing), len(paths))
	}
}

// TestDocMentionsRules holds the mention rules to a few lines whose
// answer is known, so that a rule that matched everything would fail.
func TestDocMentionsRules(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.md")
	text := "## `steps[].target`\n| `rss_slope_fit {n, rho}` | x |\n" +
		"## `shard`\n| `shards[]` | `{\"index\", \"file\"}` |\n" +
		"## Other\n`steps[].by_name.NAME.requests` and `run.host`; not p99.\n"
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m := docMentions(t, doc)
	for _, want := range []string{"steps[].target.rss_slope_fit.n", "steps[].target.rss_slope_fit.rho",
		"shard.shards[].file", "steps[].by_name.*.requests", "run.host"} {
		if !m[normalPath(want)] {
			t.Errorf("%s not found mentioned", want)
		}
	}
	for _, not := range []string{"steps[].target.index", "shard.rho", "steps[].latency_ms.p99", "run.host.os", "requests"} {
		if m[normalPath(not)] {
			t.Errorf("%s found mentioned, but the doc does not name it", not)
		}
	}
}

var (
	backticked = regexp.MustCompile("`([^`]+)`")
	// docName is a field path as the doc writes one: lower-case names
	// joined by dots, each perhaps followed by [] (`steps[].checks[].ok`).
	docName = regexp.MustCompile(`[a-z_][a-z0-9_]*(?:\[\])?(?:\.[a-z_][a-z0-9_]*(?:\[\])?)*`)
)

// docMentions reads a markdown file and returns the normalized paths its
// backticked names mention (see TestArtifactDocNamesEveryField).
func docMentions(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	var context []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		names := lineNames(line)
		if strings.HasPrefix(line, "#") {
			context = names
		}
		for i, n := range names {
			for _, pre := range append([]string{""}, context...) {
				add(out, pre, n)
				for _, earlier := range names[:i] {
					add(out, join(pre, earlier), n)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// lineNames are the path-like names inside a line's backticks, in order.
func lineNames(line string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(line, -1) {
		out = append(out, docName.FindAllString(stripMapKeys(m[1]), -1)...)
	}
	return out
}

// stripMapKeys drops the map keys a doc writes as placeholders in capitals
// or quotes (`by_name.NAME.requests`, `probes["TARGET/NAME"]`).
func stripMapKeys(s string) string {
	s = regexp.MustCompile(`\.[A-Z][A-Z0-9_/]*`).ReplaceAllString(s, "")
	return regexp.MustCompile(`\["[^"]*"\]`).ReplaceAllString(s, "")
}

func add(set map[string]bool, prefix, name string) { set[normalPath(join(prefix, name))] = true }

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// normalPath drops a path's [] and map keys (*): `steps.by_name.requests`.
func normalPath(p string) string {
	p = strings.ReplaceAll(p, "[]", "")
	return strings.ReplaceAll(p, ".*", "")
}
