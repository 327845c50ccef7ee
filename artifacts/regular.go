package artifacts

import (
	"fmt"
	"os"
)

// OpenRegular opens the file at path for reading when it is a regular
// file (a link to one is followed). Anything else is refused without
// blocking: a FIFO is opened non-blocking (its open would wait for a
// writer that may never come, and hang `validate`), and a device such as
// /dev/zero or a folder is refused by what it is, not read. Every file
// benchtui reads whole (a plan, a data file, an artifact) goes through it.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is a %s, not a regular file", path, fileKind(fi.Mode()))
	}
	return f, nil
}
