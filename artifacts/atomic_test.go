package artifacts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFilesAtomicAllOrNone: files written together land together;
// when one of them cannot be written (a folder where its file would go),
// none is renamed into place and no temporary file is left.
func TestWriteFilesAtomicAllOrNone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.hlog"), filepath.Join(dir, "b.json")
	if err := writeFilesAtomic([]fileData{{a, []byte("A")}, {b, []byte("B")}}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{a: "A", b: "B"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != OutputMode {
			t.Errorf("%s: mode %v, %v; want %v", path, fi.Mode(), err, os.FileMode(OutputMode))
		}
	}
	c, blocked := filepath.Join(dir, "c.hlog"), filepath.Join(dir, "d.json")
	if err := os.Mkdir(blocked, 0o755); err != nil {
		t.Fatal(err)
	}
	err := writeFilesAtomic([]fileData{{c, []byte("C")}, {blocked, []byte("D")}})
	if err == nil || !strings.Contains(err.Error(), "d.json") {
		t.Fatalf("a folder in the way: %v, want an error naming d.json", err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "a.hlog b.json d.json" {
		t.Errorf("folder holds %v, want a.hlog b.json d.json: nothing of the failed write", names)
	}
}

// TestWriteFilesAtomicManyFiles: more files than may be open at once are
// written in batches, every one of them, the last one last.
func TestWriteFilesAtomicManyFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var files []fileData
	for i := range 3*maxOpenTemps + 1 {
		files = append(files, fileData{filepath.Join(dir, fmt.Sprintf("f%03d", i)), []byte{byte(i)}})
	}
	if err := writeFilesAtomic(files); err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		if got, err := os.ReadFile(f.path); err != nil || len(got) != 1 || got[0] != byte(i) {
			t.Errorf("%s: %v, %v", f.path, got, err)
		}
	}
	last, _ := os.Stat(files[len(files)-1].path)
	for _, f := range files[:len(files)-1] {
		if fi, _ := os.Stat(f.path); fi.ModTime().After(last.ModTime()) {
			t.Errorf("%s written after the last file", f.path)
		}
	}
}
