package artifacts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// FileName is the artifact file name for a group at a run start:
// "<group id>-<unix ms>.json".
func FileName(groupID string, started time.Time) string {
	return fmt.Sprintf("%s-%d.json", groupID, started.UnixMilli())
}

// Write stores a in dir under FileName, atomically: it writes a temporary
// file, syncs it and renames it into place, so a reader never sees half a
// file. It returns the final path. A NaN or Inf figure is written as 0,
// with a note (SanitizeFloats): JSON has no such number, and no figure
// gone wrong may lose the run.
func Write(dir string, a *Artifact) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating artifacts folder %s: %w", dir, err)
	}
	if a.Schema == "" {
		a.Schema = Schema
	}
	path := filepath.Join(dir, FileName(a.Group.ID, a.Run.Started))
	// The interval logs are renamed into place first, so the artifact
	// never names a file that is not there.
	files := hlogFiles(path, a)
	SanitizeFloats(a)
	var data bytes.Buffer
	if err := EncodeJSON(&data, a); err != nil {
		return "", fmt.Errorf("encoding artifact for %s: %w", a.Group.ID, err)
	}
	return path, writeFilesAtomic(append(files, fileData{path, data.Bytes()}))
}

// CheckWritable makes dir when missing and writes, syncs and removes a
// probe file in it, so a run whose figures could not be stored fails
// before it starts rather than after. The error names the folder.
func CheckWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("artifacts folder %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".benchtui-probe-*")
	if err != nil {
		return fmt.Errorf("artifacts folder %s is not writable: %w", dir, err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write([]byte("probe\n"))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("artifacts folder %s is not writable: %w", dir, err)
	}
	return nil
}

// OutputMode is the mode of every file benchtui writes (artifacts,
// reports): readable by all, like any other build or test output, so a CI
// job or a colleague can pick it up.
const OutputMode = 0o644

// WriteFileAtomic writes data to path through a synced temporary file in the
// same folder and a rename (writeFilesAtomic).
func WriteFileAtomic(path string, data []byte) error {
	return writeFilesAtomic([]fileData{{path, data}})
}

// replaceable is nil when path is absent or a regular file (not a link
// to one).
// CheckReplaceable reports whether WriteFileAtomic may write path: an
// error when something other than a regular file (a link, a device, a
// FIFO, a folder) is there. A command checks its output files with it
// before a long run, rather than fail at the end.
func CheckReplaceable(path string) error { return replaceable(path) }

func replaceable(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("writing %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("writing %s: it is a %s, not a regular file: not replaced", path, fileKind(fi.Mode()))
	}
	return nil
}

// fileKind names the kind of file a mode is.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "FIFO"
	case m&os.ModeDevice != 0:
		return "device"
	case m&os.ModeSocket != 0:
		return "socket"
	case m.IsDir():
		return "folder"
	}
	return "special file"
}

// Load reads and checks the artifact at path. A file of another schema, one
// that is not a well-formed artifact, or one with a figure out of range (a
// negative count, a latency past an hour, two steps of one label: see
// check) is an error naming the file and, for a figure, its field:
// "reading artifact a.json: damaged artifact: steps[2].latency_ms.p99: -5
// out of range [0, 3.6e+06]".
func Load(path string) (*Artifact, error) {
	data, err := readBounded(path, MaxArtifactBytes)
	if err != nil {
		return nil, fmt.Errorf("reading artifact %s: %w", path, err)
	}
	a, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("reading artifact %s: %w", path, err)
	}
	a.Dir = filepath.Dir(path)
	return a, nil
}

// readBounded reads the regular file at path (OpenRegular), refusing one
// longer than limit before holding more than limit+1 bytes of it.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d MiB: not an artifact benchtui wrote", limit>>20)
	}
	return data, nil
}

// Decode parses and checks an artifact document.
func Decode(data []byte) (*Artifact, error) {
	if err := checkShape(data); err != nil {
		return nil, err
	}
	var probe struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("not a JSON artifact: %w", err)
	}
	if probe.Schema == nil {
		return nil, errors.New(`no "schema" field: not a benchtui artifact`)
	}
	if *probe.Schema != Schema {
		return nil, fmt.Errorf("schema %q, want %q", *probe.Schema, Schema)
	}
	a, err := decodeArtifact(data)
	if err != nil {
		return nil, fmt.Errorf("damaged artifact: %w", err)
	}
	if a.Group.ID == "" {
		return nil, errors.New("damaged artifact: no group id")
	}
	if err := check(a); err != nil {
		return nil, fmt.Errorf("damaged artifact: %w", err)
	}
	return a, nil
}

// MaxArtifactBytes bounds the file Load reads: a long soak's artifact is a
// few megabytes (series and samples are thinned), so a larger file is not
// one benchtui wrote.
const MaxArtifactBytes = 256 << 20

// Entry is an artifact file found in a folder.
type Entry struct {
	Path    string
	GroupID string
	Started time.Time
}

// List returns the artifact files in dir, newest first. Files whose names do
// not have the "<group>-<unix ms>.json" shape are skipped.
func List(dir string) ([]Entry, error) {
	names, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("listing artifacts in %s: %w", dir, err)
	}
	var out []Entry
	for _, d := range names {
		if e, ok := parseName(d.Name()); ok && !d.IsDir() {
			e.Path = filepath.Join(dir, d.Name())
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out, nil
}

func parseName(name string) (Entry, bool) {
	base, ok := strings.CutSuffix(name, ".json")
	i := strings.LastIndexByte(base, '-')
	if !ok || i <= 0 || strings.HasPrefix(name, ".") {
		return Entry{}, false
	}
	ms, err := strconv.ParseInt(base[i+1:], 10, 64)
	if err != nil {
		return Entry{}, false
	}
	return Entry{GroupID: base[:i], Started: time.UnixMilli(ms)}, true
}

// Newest returns the newest artifact of group in dir that started before
// before (zero means any time), or "" when there is none.
func Newest(dir, group string, before time.Time) (string, error) {
	entries, err := List(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.GroupID == group && (before.IsZero() || e.Started.Before(before)) {
			return e.Path, nil
		}
	}
	return "", nil
}

// NewestComplete returns the newest artifact of group in dir that started
// before before (zero means any time) and is whole: partial artifacts (a
// run stopped or quit part way) are loaded and passed over, so a cut run
// never becomes the baseline it would be judged a regression against.
// skipped are those partial artifacts, newest first; path is "" and a nil
// when there is no whole one. A damaged file met on the way is an error
// naming it.
func NewestComplete(dir, group string, before time.Time) (path string, a *Artifact, skipped []*Artifact, err error) {
	entries, err := List(dir)
	if err != nil {
		return "", nil, nil, err
	}
	for _, e := range entries {
		if e.GroupID != group || (!before.IsZero() && !e.Started.Before(before)) {
			continue
		}
		a, err := Load(e.Path)
		if err != nil {
			return "", nil, skipped, err
		}
		if !a.Run.Partial {
			return e.Path, a, skipped, nil
		}
		skipped = append(skipped, a)
	}
	return "", nil, skipped, nil
}
