package pgload

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// An embedded cluster's data folder is a copy of a cached template: one
// pristine initdb'd data folder per Postgres (bin folder and `postgres
// --version`), initdb options and user, in <root>/btpgt-<uid>-<hash>:
//
//	btpgt-0-1a2b3c4d5e6f7a8b/   0700, owned by benchtui's user
//	  benchtui-template          its key, then the files' count and bytes
//	  data/                      initdb's output (the postgres user's when root)
//
// It is built in a folder the stale cleaner knows (ownerPrefix) and renamed
// into place whole, so a half-made template is never seen; of benchtui
// processes racing to make it, the first rename wins and the others discard
// their copy. The name never matches ownerPrefix: the stale cleaner leaves
// it. One that does not match its key, its Postgres major version or its
// file tally is moved aside, removed and built again.

// templatePrefix starts the name of every template folder.
const templatePrefix = clusterPrefix + "t-"

// templateInfoFile names the template's key and tally, next to data/.
const templateInfoFile = "benchtui-template"

// templateMu makes this process build a template once, not once per
// cluster started at the same time.
var templateMu sync.Mutex

// errCorruptTemplate says a template does not hold what its tally says.
var errCorruptTemplate = errors.New("the cached initdb template is damaged")

// template is one cached initdb template.
type template struct {
	dir   string // <root>/btpgt-<uid>-<hash>
	key   string // what it was made from
	major string // the Postgres major version, as PG_VERSION says it
}

// templateFor is the template of the Postgres in bin for this user, under
// root.
func templateFor(ctx context.Context, root, bin string) (*template, error) {
	version, err := postgresVersion(ctx, bin)
	if err != nil {
		return nil, err
	}
	major, err := majorVersion(version)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("bin=%s\nversion=%s\ninitdb=%s\nuid=%d\n", bin, version, strings.Join(initdbArgs, " "), os.Geteuid())
	sum := sha256.Sum256([]byte(key))
	name := fmt.Sprintf("%s%d-%x", templatePrefix, os.Geteuid(), sum[:8])
	return &template{dir: filepath.Join(root, name), key: key, major: major}, nil
}

// dataDir is the template's pristine data folder.
func (t *template) dataDir() string { return filepath.Join(t.dir, "data") }

// copyFromTemplate makes the cluster's data folder a copy of its template,
// building the template first when it is missing or unusable, and once
// more when the copy finds it damaged.
func (e *Embedded) copyFromTemplate(ctx context.Context, root string) error {
	t, err := templateFor(ctx, root, e.bin)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		made, err := t.ensure(ctx, e.bin, e.cred)
		if err != nil {
			return err
		}
		err = copyTree(ctx, t.dataDir(), e.DataDir(), made.tally, e.cred)
		if err == nil || !errors.Is(err, errCorruptTemplate) || attempt > 0 {
			return err
		}
		if rmErr := os.RemoveAll(e.DataDir()); rmErr != nil {
			return errors.Join(err, rmErr)
		}
		t.discardIfSame(made.dir)
	}
}

// madeTemplate is a template found usable: its folder and its tally.
type madeTemplate struct {
	dir   fs.FileInfo
	tally treeTally
}

// ensure returns a usable template, building it if need be.
func (t *template) ensure(ctx context.Context, bin string, cred *credential) (madeTemplate, error) {
	if made, err := t.check(); err == nil {
		return made, nil
	}
	templateMu.Lock()
	defer templateMu.Unlock()
	made, err := t.check() // another goroutine may have built it meanwhile
	if err == nil {
		return made, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.discard()
		if _, statErr := os.Lstat(t.dir); statErr == nil {
			return madeTemplate{}, err // another user's, say: building would be in vain
		}
	}
	if err := t.build(ctx, bin, cred); err != nil {
		return madeTemplate{}, err
	}
	return t.check()
}

// discardIfSame discards the template if its folder is still dir (not
// one another goroutine has built since).
func (t *template) discardIfSame(dir fs.FileInfo) {
	templateMu.Lock()
	defer templateMu.Unlock()
	if now, err := os.Lstat(t.dir); err == nil && os.SameFile(now, dir) {
		t.discard()
	}
}

// check returns the template if it is usable: ours alone, made from the
// same key, for the same major version.
func (t *template) check() (madeTemplate, error) {
	dir, err := privateDir(t.dir)
	if err != nil {
		return madeTemplate{}, err
	}
	info, err := readSmallFile(filepath.Join(t.dir, templateInfoFile))
	if err != nil {
		return madeTemplate{}, err
	}
	rest, ok := strings.CutPrefix(info, t.key)
	if !ok {
		return madeTemplate{}, fmt.Errorf("%w: %s was made from other binaries or options", errCorruptTemplate, t.dir)
	}
	made := madeTemplate{dir: dir}
	if _, err := fmt.Sscanf(rest, "files=%d\nbytes=%d\n", &made.tally.files, &made.tally.bytes); err != nil {
		return madeTemplate{}, fmt.Errorf("%w: reading %s's tally: %v", errCorruptTemplate, t.dir, err)
	}
	pgVersion, err := readSmallFile(filepath.Join(t.dataDir(), "PG_VERSION"))
	if err != nil {
		return madeTemplate{}, fmt.Errorf("%w: %v", errCorruptTemplate, err)
	}
	if got := strings.TrimSpace(pgVersion); got != t.major {
		return madeTemplate{}, fmt.Errorf("%w: %s says PG_VERSION %q, the binaries are %s", errCorruptTemplate, t.dir, got, t.major)
	}
	return made, nil
}

// build runs initdb in a folder of this process's (which the stale
// cleaner removes if we die) and renames it into place; if another process
// got there first, ours is discarded.
func (t *template) build(ctx context.Context, bin string, cred *credential) error {
	root := filepath.Dir(t.dir)
	work, err := os.MkdirTemp(root, ownerPrefix(os.Getpid()))
	if err != nil {
		return fmt.Errorf("making the initdb template: %w", err)
	}
	defer os.RemoveAll(work) // gone already when renamed
	data := filepath.Join(work, "data")
	if err := initdbAs(ctx, bin, cred, work, data); err != nil {
		return err
	}
	tally, err := measureTree(ctx, data)
	if err != nil {
		return err
	}
	info := fmt.Sprintf("%sfiles=%d\nbytes=%d\n", t.key, tally.files, tally.bytes)
	if err := os.WriteFile(filepath.Join(work, templateInfoFile), []byte(info), 0o600); err != nil {
		return fmt.Errorf("making the initdb template: %w", err)
	}
	if err := os.Rename(work, t.dir); err != nil {
		if _, checkErr := t.check(); checkErr == nil {
			return nil // another process won the race: use its template
		}
		return fmt.Errorf("putting the initdb template in place: %w", err)
	}
	return nil
}

// initdbAs runs initdb for data in work, as cred when not nil (work is
// handed to that user for the run, and back to us after).
func initdbAs(ctx context.Context, bin string, cred *credential, work, data string) error {
	if cred != nil {
		if err := os.Chown(work, int(cred.Uid), int(cred.Gid)); err != nil {
			return fmt.Errorf("handing %s to the postgres user: %w", work, err)
		}
	}
	_, err := runProgram(ctx, bin, cred, work, data, "initdb", append([]string{"-D", data}, initdbArgs...)...)
	if cred != nil {
		// Taken back even when initdb failed, so the folder can be removed.
		err = errors.Join(err, os.Lchown(work, os.Geteuid(), os.Getegid()))
	}
	return err
}

// discard moves the template aside into a folder of this process's (in
// one rename: a process copying it meanwhile sees it whole or not at all,
// and the stale cleaner removes it should we die) and removes it.
func (t *template) discard() {
	trash, err := os.MkdirTemp(filepath.Dir(t.dir), ownerPrefix(os.Getpid()))
	if err != nil {
		return
	}
	_ = os.Rename(t.dir, filepath.Join(trash, "old"))
	_ = os.RemoveAll(trash)
}

// postgresVersions caches `postgres --version` by binary (path, size and
// modification time).
var postgresVersions sync.Map

// postgresVersion is `postgres --version` of the postgres in bin.
func postgresVersion(ctx context.Context, bin string) (string, error) {
	path := filepath.Join(bin, "postgres")
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("reading the postgres version: %w", err)
	}
	id := fmt.Sprintf("%s %d %d", path, st.Size(), st.ModTime().UnixNano())
	if v, ok := postgresVersions.Load(id); ok {
		return v.(string), nil
	}
	out, err := runProgram(ctx, bin, nil, os.TempDir(), "", "postgres", "--version")
	if err != nil {
		return "", err
	}
	version := strings.TrimSpace(string(out))
	postgresVersions.Store(id, version)
	return version, nil
}

// majorVersion is the major version in `postgres --version`'s output
// ("postgres (PostgreSQL) 15.18 (Debian ...)" is 15, 9.6.24 is 9.6), as
// PG_VERSION says it.
func majorVersion(version string) (string, error) {
	_, rest, ok := strings.Cut(version, "(PostgreSQL) ")
	fields := strings.Fields(rest)
	if !ok || len(fields) == 0 {
		return "", fmt.Errorf("no version in `postgres --version`: %q", version)
	}
	parts := strings.FieldsFunc(fields[0], func(r rune) bool { return r < '0' || r > '9' })
	if len(parts) == 0 {
		return "", fmt.Errorf("no version in `postgres --version`: %q", version)
	}
	if n, err := strconv.Atoi(parts[0]); err == nil && n < 10 && len(parts) > 1 {
		return parts[0] + "." + parts[1], nil
	}
	return parts[0], nil
}

// readSmallFile reads a regular file of at most 4 KiB, not through a
// symbolic link.
func readSmallFile(path string) (string, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() || st.Size() > 4096 {
		return "", fmt.Errorf("%w: %s is not a small regular file", errCorruptTemplate, path)
	}
	b, err := os.ReadFile(path)
	return string(b), err
}
