package artifacts

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// fileData is a file to write: its path and its bytes.
type fileData struct {
	path string
	data []byte
}

// tempFile is a file's temporary twin in the same folder, written and
// not yet renamed into place.
type tempFile struct {
	fileData
	tmp *os.File
}

// writeFilesAtomic writes each file through a temporary file in the same
// folder, syncs them all at once and renames them into place in order (an
// artifact last, so it never names a file that is not there): a reader
// never sees half a file, and a crash leaves each file old or new. One
// sync each, but concurrent (maxOpenTemps at a time): a busy disk took
// 0.4 s a sync, once per file in turn. The files get OutputMode: os.CreateTemp makes its files
// private (0600), which an artifact or a report is not. Only a regular
// file is replaced: a symlink, a device (-o /dev/null as root), a FIFO or
// a folder at a path is an error, left as it is.
func writeFilesAtomic(files []fileData) error {
	for len(files) > 0 {
		n := min(len(files), maxOpenTemps)
		if err := writeBatchAtomic(files[:n]); err != nil {
			return err
		}
		files = files[n:]
	}
	return nil
}

// maxOpenTemps bounds the temporary files open at once: a sweep of 1,000
// steps has 1,000 interval logs, past a default limit of 1,024 fds.
const maxOpenTemps = 32

// writeBatchAtomic is writeFilesAtomic for at most maxOpenTemps files.
func writeBatchAtomic(files []fileData) error {
	var temps []tempFile
	defer func() {
		for _, t := range temps {
			t.tmp.Close()
			os.Remove(t.tmp.Name()) // a no-op once renamed
		}
	}()
	for _, f := range files {
		t, err := writeTemp(f)
		if err != nil {
			return err
		}
		temps = append(temps, t)
	}
	if err := syncAll(temps); err != nil {
		return err
	}
	for _, t := range temps {
		if err := t.tmp.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", t.path, err)
		}
		if err := os.Rename(t.tmp.Name(), t.path); err != nil {
			return fmt.Errorf("renaming into %s: %w", t.path, err)
		}
	}
	return nil
}

// writeTemp writes f's bytes to a new temporary file beside f.path.
func writeTemp(f fileData) (tempFile, error) {
	if err := replaceable(f.path); err != nil {
		return tempFile{}, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), "."+filepath.Base(f.path)+".tmp*")
	if err != nil {
		return tempFile{}, fmt.Errorf("writing %s: %w", f.path, err)
	}
	t := tempFile{fileData: f, tmp: tmp}
	if err := tmp.Chmod(OutputMode); err != nil {
		return t.fail(err)
	}
	if _, err := tmp.Write(f.data); err != nil {
		return t.fail(err)
	}
	return t, nil
}

// fail removes a temporary file whose writing failed.
func (t tempFile) fail(err error) (tempFile, error) {
	t.tmp.Close()
	os.Remove(t.tmp.Name())
	return tempFile{}, fmt.Errorf("writing %s: %w", t.path, err)
}

// syncAll syncs the files concurrently and returns the first failure.
func syncAll(temps []tempFile) error {
	errs := make([]error, len(temps))
	var wg sync.WaitGroup
	for i, t := range temps {
		wg.Go(func() {
			if err := t.tmp.Sync(); err != nil {
				errs[i] = fmt.Errorf("syncing %s: %w", t.path, err)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
