package artifacts

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// LoadSet loads the newest artifact of each group from paths, each an
// artifact file or a folder of them. Of a folder only the newest file of each
// group (by its name, see List) is read; across all paths the artifact with
// the latest run start wins for a group, a later path on a tie. The result is
// sorted by group id (G2 before G10). An unreadable, damaged or foreign file
// is an error naming it; a missing path is an error; an empty folder gives
// no artifacts and no error, so "no baseline yet" is not a failure.
//
// The headless `run --baseline FILE|DIR` and `compare` read their inputs
// with it.
func LoadSet(paths ...string) ([]*Artifact, error) {
	all, err := loadPaths(paths, true)
	if err != nil {
		return nil, err
	}
	byGroup := NewestByGroup(all)
	ids := make([]string, 0, len(byGroup))
	for id := range byGroup {
		ids = append(ids, id)
	}
	SortNatural(ids)
	out := make([]*Artifact, len(ids))
	for i, id := range ids {
		out[i] = byGroup[id]
	}
	return out, nil
}

// LoadAll loads every artifact in paths, each a file or a folder (every
// artifact file in it), oldest run first. `report` reads its inputs with it,
// so that two runs of a group make a before/after table.
func LoadAll(paths ...string) ([]*Artifact, error) {
	all, err := loadPaths(paths, false)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Run.Started.Before(all[j].Run.Started) })
	return all, nil
}

// ShardFile is one shard's artifact and the file it was read from (for
// messages that name it).
type ShardFile struct {
	Path string
	A    *Artifact
}

// LoadShardFiles loads every artifact that paths name, each a file or a
// folder (every artifact file in it), keeping where each came from.
func LoadShardFiles(paths ...string) ([]ShardFile, error) {
	return loadFiles(paths, false)
}

// loadPaths loads the artifact files that paths name (see expand).
func loadPaths(paths []string, newest bool) ([]*Artifact, error) {
	files, err := loadFiles(paths, newest)
	if err != nil {
		return nil, err
	}
	all := make([]*Artifact, len(files))
	for i, f := range files {
		all[i] = f.A
	}
	return all, nil
}

// loadFiles loads the artifact files that paths name (see expand),
// keeping where each came from.
func loadFiles(paths []string, newest bool) ([]ShardFile, error) {
	var out []ShardFile
	for _, p := range paths {
		files, err := expand(p, newest)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			as, err := loadFile(f)
			if err != nil {
				return nil, err
			}
			for _, a := range as {
				out = append(out, ShardFile{Path: f, A: a})
			}
		}
	}
	return out, nil
}

// expand turns a path into the artifact files it names: itself when a file,
// its artifact files (newest first; only the newest per group if newest)
// when a folder.
func expand(path string, newest bool) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading artifacts %s: %w", path, err)
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	entries, err := List(path)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool)
	var files []string
	for _, e := range entries {
		if newest && seen[e.GroupID] {
			continue
		}
		seen[e.GroupID] = true
		files = append(files, e.Path)
	}
	return files, nil
}

// loadFile reads the artifact at path, or every framed artifact (see
// WriteFramed) when it is a log holding some: `kubectl logs` of a shard,
// or a shard's stdout kept in a file.
func loadFile(path string) ([]*Artifact, error) {
	data, err := readBounded(path, MaxArtifactBytes)
	if err != nil {
		return nil, fmt.Errorf("reading artifact %s: %w", path, err)
	}
	if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) && bytes.Contains(data, []byte(frameBegin+" ")) {
		as, err := ReadFramed(bytes.NewReader(data), path)
		if err == nil && len(as) == 0 {
			err = fmt.Errorf("%s: no framed artifact", path)
		}
		return as, err
	}
	a, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("reading artifact %s: %w", path, err)
	}
	a.Dir = filepath.Dir(path)
	return []*Artifact{a}, nil
}

// SortNatural sorts ids so that digit runs compare as numbers: G2 < G10.
func SortNatural(ids []string) {
	sort.Slice(ids, func(i, j int) bool { return naturalLess(ids[i], ids[j]) })
}

func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da != "" && db != "" {
			na, _ := strconv.ParseUint(da, 10, 64)
			nb, _ := strconv.ParseUint(db, 10, 64)
			if na != nb {
				return na < nb
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// NewestByGroup maps each group id of arts to its artifact with the
// latest run start (a later one in arts on a tie); nil artifacts are
// skipped.
func NewestByGroup(arts []*Artifact) map[string]*Artifact {
	m := make(map[string]*Artifact)
	for _, a := range arts {
		if a == nil {
			continue
		}
		if old, ok := m[a.Group.ID]; !ok || !a.Run.Started.Before(old.Run.Started) {
			m[a.Group.ID] = a
		}
	}
	return m
}
