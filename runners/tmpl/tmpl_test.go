package tmpl

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func mustCompile(t *testing.T, src string, cols Columns) *Template {
	t.Helper()
	tp, err := Compile(src, cols, func(k string) string { return "env-" + k })
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	return tp
}

func TestRender(t *testing.T) {
	data := NewSource(&Table{Columns: Columns{"name", "id"}, Rows: [][]string{{"ann", "1"}, {"bob", "2"}}}, Sequential)
	s := NewState(data, nil)
	cases := []struct{ src, want string }{
		{"plain", "plain"},
		{"a{{seq}}b", "a1b"},
		{`{{env "X"}}`, "env-X"},
		{`{{"{{"}}x}}`, "{{x}}"},
		{"{{.name}}/{{ row \"id\" }}", "ann/1"},
		{`{{rand_int 7 7}}`, "7"},
		{`{{rand_choice "only"}}`, "only"},
	}
	s.Next()
	for _, c := range cases {
		if got := string(mustCompile(t, c.src, Columns{"name", "id"}).Append(nil, s)); got != c.want {
			t.Errorf("%q rendered %q, want %q", c.src, got, c.want)
		}
	}
	if u := string(mustCompile(t, "{{uuid}}", nil).Append(nil, s)); !uuidV4.MatchString(u) {
		t.Errorf("uuid %q is not a version 4 UUID", u)
	}
	if n := string(mustCompile(t, "{{now}}", nil).Append(nil, s)); !strings.Contains(n, "T") {
		t.Errorf("now = %q, want RFC 3339", n)
	}
}

func TestStatic(t *testing.T) {
	if tp := mustCompile(t, "no actions", nil); !tp.Static() || tp.Literal() != "no actions" {
		t.Errorf("a field without {{ must be static")
	}
	if mustCompile(t, "{{seq}}", nil).Static() {
		t.Errorf("{{seq}} is not static")
	}
}

func TestCompileErrors(t *testing.T) {
	for _, src := range []string{"{{nope}}", "{{uuid", "{{rand_int 5 1}}", "{{rand_int a b}}", `{{rand_choice a}}`,
		"{{.missing}}", `{{env X}}`, `{{rand_choice "a}}`, "{{seq 1}}", "{{}}"} {
		if _, err := Compile(src, Columns{"name"}, nil); err == nil {
			t.Errorf("Compile(%q) gave no error", src)
		}
	}
}

// TestRenderAllocs: rendering into a buffer with room allocates nothing.
func TestRenderAllocs(t *testing.T) {
	data := NewSource(&Table{Columns: Columns{"u"}, Rows: [][]string{{"x"}}}, Random)
	s := NewState(data, nil)
	tp := mustCompile(t, `{"id":"{{uuid}}","n":{{seq}},"t":"{{now}}","ms":{{now_ms}},"r":{{rand_int 1 100}},"c":"{{rand_choice "a" "b"}}","u":"{{.u}}"}`, Columns{"u"})
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(1000, func() { s.Next(); buf = tp.Append(buf[:0], s) }); n != 0 {
		t.Errorf("rendering allocates %v times per request, want 0", n)
	}
}

func TestDataFiles(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "u.csv")
	jsonPath := filepath.Join(dir, "u.jsonl")
	os.WriteFile(csvPath, []byte("name,id\nann,1\n\"b,ob\",2\n"), 0o600)
	os.WriteFile(jsonPath, []byte(`{"name":"ann","id":1}`+"\n\n"+`{"name":"bob","id":2}`+"\n"), 0o600)
	for _, p := range []string{csvPath, jsonPath} {
		tb, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(tb.Rows) != 2 || len(tb.Columns) != 2 {
			t.Errorf("%s: %v %v", p, tb.Columns, tb.Rows)
		}
	}
	src := NewSource(&Table{Columns: Columns{"a"}, Rows: [][]string{{"1"}, {"2"}}}, Unique)
	s := NewState(src, nil)
	got := []bool{s.Next(), s.Next(), s.Next()}
	if !got[0] || !got[1] || got[2] {
		t.Errorf("unique: got %v, want two rows, then none", got)
	}
	if _, err := Load(filepath.Join(dir, "x.txt")); err == nil {
		t.Errorf("a .txt data file must be refused")
	}
}

func BenchmarkRender(b *testing.B) {
	s := NewState(nil, nil)
	tp, _ := Compile(`{"id":"{{uuid}}","seq":{{seq}},"at":{{now_ms}}}`, nil, nil)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		s.Next()
		buf = tp.Append(buf[:0], s)
	}
}

// TestDataFileThatIsNoFileIsRefused: a data file that is a device (a
// link to /dev/zero) is refused by what it is, never read.
func TestDataFileThatIsNoFileIsRefused(t *testing.T) {
	link := filepath.Join(t.TempDir(), "zero.csv")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Skip("no /dev/zero to link:", err)
	}
	if _, err := Load(link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Load(link to /dev/zero) = %v, want refused", err)
	}
}

// TestDataFileRowsAreBounded: a huge field (no line end, or inside
// quotes across lines), a huge header row or JSON line, and too many
// columns are refused after reading little more than MaxRowBytes, each
// with a short message.
func TestDataFileRowsAreBounded(t *testing.T) {
	huge := strings.Repeat("a", 8*MaxRowBytes)
	quoted := "id,body\n1,\"" + strings.Repeat("line\n", 2*MaxRowBytes/5) + "\"\n"
	wide := strings.Repeat("c,", 2*MaxColumns) + "c\n1\n"
	cases := map[string]struct{ name, text, want string }{
		"field":   {"f.csv", "id,body\n1," + huge + "\n", "a row longer than"},
		"quoted":  {"q.csv", quoted, "a row longer than"},
		"header":  {"h.csv", huge + "\n1\n", "a row longer than"},
		"columns": {"c.csv", wide, "columns, at most 1000"},
		"json":    {"j.jsonl", `{"a":"` + huge + `"}` + "\n", "a line longer than"},
	}
	for name, c := range cases {
		path := filepath.Join(t.TempDir(), c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Load(path)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 300 {
			t.Errorf("%s: %.300v; want a short error with %q", name, err, c.want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*MaxRowBytes {
			t.Errorf("%s: %d bytes allocated to refuse it", name, alloc)
		}
	}
}
