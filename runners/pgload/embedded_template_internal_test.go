//go:build linux

package pgload

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// templateTestRoot is a folder for templates of the test's own, which
// the postgres user may enter when we are root (initdb runs as it).
func templateTestRoot(t *testing.T) string {
	t.Helper()
	if _, err := findBinDir(""); errors.Is(err, ErrNoPostgres) {
		t.Skipf("no Postgres to test against: %v", err)
	}
	root, err := os.MkdirTemp("", "bttmpl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// startFromTemplate starts a cluster whose template lives under root,
// stopped when the test ends.
func startFromTemplate(t *testing.T, root string) *Embedded {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := StartEmbedded(ctx, EmbeddedOptions{templateRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// queryOne runs sql on e and returns the first column of its one row as
// text ("" for a statement that returns no rows).
func queryOne(t *testing.T, e *Embedded, sql string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, e.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var got string
	if err := conn.QueryRow(ctx, sql).Scan(&got); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		t.Fatalf("%s: %v", sql, err)
	}
	return got
}

// rootEntries lists root's entries by kind: templates, and folders of a
// process's own (a template being built or discarded).
func rootEntries(t *testing.T, root string) (templates, owned []string) {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range entries {
		switch {
		case strings.HasPrefix(entry.Name(), templatePrefix):
			templates = append(templates, entry.Name())
		case folderOwner(entry.Name()) != 0:
			owned = append(owned, entry.Name())
		}
	}
	return templates, owned
}

// binAndCredential are the Postgres binaries' folder and the user the
// cluster runs as, as StartEmbedded finds them.
func binAndCredential(t *testing.T) (string, *credential) {
	t.Helper()
	bin, err := findBinDir("")
	if err != nil {
		t.Fatal(err)
	}
	cred, err := serverCredential()
	if err != nil {
		t.Fatal(err)
	}
	return bin, cred
}

// onlyTemplate is root's one template, failing unless root holds exactly
// that.
func onlyTemplate(t *testing.T, root string) *template {
	t.Helper()
	templates, owned := rootEntries(t, root)
	if len(templates) != 1 || len(owned) != 0 {
		t.Fatalf("%s holds templates %v and work folders %v, want one template alone", root, templates, owned)
	}
	bin, _ := binAndCredential(t)
	tmpl, err := templateFor(context.Background(), root, bin)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(tmpl.dir) != templates[0] {
		t.Fatalf("template %s, want %s", templates[0], filepath.Base(tmpl.dir))
	}
	return tmpl
}

// TestTemplateColdStartsAtOnce: two clusters started at once from a cold
// cache both answer, one template results, and the stale cleaner leaves
// it.
func TestTemplateColdStartsAtOnce(t *testing.T) {
	t.Parallel()
	root := templateTestRoot(t)
	clusters := make([]*Embedded, 2)
	var wg sync.WaitGroup
	for i := range clusters {
		wg.Go(func() { clusters[i] = startFromTemplate(t, root) })
	}
	wg.Wait()
	for _, e := range clusters {
		if e == nil {
			t.FailNow()
		}
		if got := queryOne(t, e, "SELECT 'ok'"); got != "ok" {
			t.Errorf("SELECT 'ok' = %q", got)
		}
	}
	tmpl := onlyTemplate(t, root)
	if _, err := tmpl.check(); err != nil {
		t.Fatal(err)
	}
	cleanStale(root)
	onlyTemplate(t, root)
}

// TestTemplateBuildRace: processes racing to build the template (here,
// two builds without the process's lock) all succeed; the losers discard
// their copy.
func TestTemplateBuildRace(t *testing.T) {
	t.Parallel()
	root := templateTestRoot(t)
	bin, cred := binAndCredential(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmpl, err := templateFor(ctx, root, bin)
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { errs[i] = tmpl.build(ctx, bin, cred) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	onlyTemplate(t, root)
	if _, err := tmpl.check(); err != nil {
		t.Fatal(err)
	}
}

// TestTemplateDamagedIsRebuilt: a template with a wrong PG_VERSION, or
// missing a file, is rebuilt, and the cluster started from it works.
func TestTemplateDamagedIsRebuilt(t *testing.T) {
	t.Parallel()
	root := templateTestRoot(t)
	startFromTemplate(t, root).Stop()
	tmpl := onlyTemplate(t, root)
	for name, damage := range map[string]func() error{
		"wrong PG_VERSION": func() error {
			return os.WriteFile(filepath.Join(tmpl.dataDir(), "PG_VERSION"), []byte("9.2\n"), 0o600)
		},
		"missing pg_control": func() error { return os.Remove(filepath.Join(tmpl.dataDir(), "global", "pg_control")) },
	} {
		t.Run(name, func(t *testing.T) {
			if err := damage(); err != nil {
				t.Fatal(err)
			}
			e := startFromTemplate(t, root)
			if got := queryOne(t, e, "SELECT 'ok'"); got != "ok" {
				t.Errorf("SELECT 'ok' = %q", got)
			}
			onlyTemplate(t, root)
			if _, err := tmpl.check(); err != nil {
				t.Errorf("the template was not rebuilt: %v", err)
			}
			if _, err := os.Stat(filepath.Join(tmpl.dataDir(), "global", "pg_control")); err != nil {
				t.Errorf("the template was not rebuilt: %v", err)
			}
		})
	}
}

// TestTemplateClustersAreIndependent: clusters copied from one template
// share no data, and each data folder is private to the user the server
// runs as.
func TestTemplateClustersAreIndependent(t *testing.T) {
	t.Parallel()
	root := templateTestRoot(t)
	one, other := startFromTemplate(t, root), startFromTemplate(t, root)
	queryOne(t, one, "CREATE TABLE only_here(id int)")
	if got := queryOne(t, one, "SELECT (to_regclass('only_here') IS NOT NULL)::text"); got != "true" {
		t.Fatalf("the table is not in the cluster that made it: %s", got)
	}
	if got := queryOne(t, other, "SELECT (to_regclass('only_here') IS NULL)::text"); got != "true" {
		t.Errorf("a table made in one cluster is in another")
	}
	st, err := os.Stat(other.DataDir())
	if err != nil {
		t.Fatal(err)
	}
	wantUID := uint32(os.Geteuid())
	if other.cred != nil {
		wantUID = other.cred.Uid
	}
	if uid := st.Sys().(*syscall.Stat_t).Uid; st.Mode().Perm() != 0o700 || uid != wantUID {
		t.Errorf("data folder mode %v owner %d, want 0700 and %d", st.Mode().Perm(), uid, wantUID)
	}
}

// TestTemplateUnusableFallsBackToInitdb: when no template can be made
// (its folder cannot be written), the cluster runs its own initdb.
func TestTemplateUnusableFallsBackToInitdb(t *testing.T) {
	t.Parallel()
	root := templateTestRoot(t)
	notAFolder := filepath.Join(root, "file")
	if err := os.WriteFile(notAFolder, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bin, cred := binAndCredential(t)
	probe := &Embedded{dir: t.TempDir(), bin: bin, cred: cred}
	if err := probe.copyFromTemplate(context.Background(), notAFolder); err == nil {
		t.Fatal("a template was made in a file")
	}
	e := startFromTemplate(t, notAFolder)
	if got := queryOne(t, e, "SELECT 'ok'"); got != "ok" {
		t.Errorf("SELECT 'ok' = %q", got)
	}
}

// TestCleanStaleLeavesTemplates: the stale cleaner removes a dead
// process's half-made template folder, and never a template.
func TestCleanStaleLeavesTemplates(t *testing.T) {
	root := t.TempDir()
	dead := testbin.DeadPID(t)
	tmpl := filepath.Join(root, templatePrefix+"0-0123456789abcdef")
	halfMade := filepath.Join(root, ownerPrefix(dead)+"7")
	for _, dir := range []string{tmpl, halfMade} {
		if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cleanStale(root)
	if _, err := os.Stat(tmpl); err != nil {
		t.Errorf("the template was removed: %v", err)
	}
	if _, err := os.Stat(halfMade); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dead process's half-made template is left (%v)", err)
	}
}

// TestTemplateCopy: a cluster's data folder is a copy of the template
// (not an initdb of its own): the same entries and bytes, each with the
// template's mode, owned by the user the server runs as.
func TestTemplateCopy(t *testing.T) {
	t.Parallel()
	root := templateTestRoot(t)
	startFromTemplate(t, root).Stop()
	tmpl := onlyTemplate(t, root)
	bin, cred := binAndCredential(t)
	e := &Embedded{dir: t.TempDir(), bin: bin, cred: cred}
	ctx := context.Background()
	if err := e.copyFromTemplate(ctx, root); err != nil {
		t.Fatal(err)
	}
	made, err := tmpl.check()
	if err != nil {
		t.Fatal(err)
	}
	want := made.tally
	wantUID := uint32(os.Geteuid())
	if cred != nil {
		wantUID = cred.Uid
	}
	var got treeTally
	err = walkTree(ctx, e.DataDir(), &got, func(rel string, info fs.FileInfo) error {
		src, err := os.Lstat(filepath.Join(tmpl.dataDir(), rel))
		if err != nil {
			return err
		}
		if uid := info.Sys().(*syscall.Stat_t).Uid; info.Mode() != src.Mode() || uid != wantUID {
			t.Errorf("%s: mode %v owner %d, want %v and %d", rel, info.Mode(), uid, src.Mode(), wantUID)
		}
		return nil
	})
	if err != nil || got != want {
		t.Errorf("copied %+v (%v), the template holds %+v", got, err, want)
	}
}

func TestMajorVersion(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)": "15",
		"postgres (PostgreSQL) 9.6.24":                         "9.6",
		"postgres (PostgreSQL) 17beta1":                        "17",
		"postgres (PostgreSQL) 10.5":                           "10",
	} {
		if got, err := majorVersion(in); got != want || err != nil {
			t.Errorf("majorVersion(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "postgres (PostgreSQL) ", "postgres 15.1"} {
		if got, err := majorVersion(in); err == nil {
			t.Errorf("majorVersion(%q) = %q, want an error", in, got)
		}
	}
}
