package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// checkedOutput is a command's stdout: it keeps the first error a write
// met (a full disk, an I/O error), so that a command whose output
// was lost never exits 0.
type checkedOutput struct {
	w   io.Writer
	err error
	// reported is set when the command's stderr has said err already.
	reported bool
}

// stderrFor is stderr, watched for the command saying c's error itself.
func (c *checkedOutput) stderrFor(stderr io.Writer) io.Writer {
	return stderrWatch{c, stderr}
}

// stderrWatch marks its output's error reported when a line written
// holds its text.
type stderrWatch struct {
	out *checkedOutput
	w   io.Writer
}

func (s stderrWatch) Write(p []byte) (int, error) {
	if err := s.out.err; err != nil && bytes.Contains(p, []byte(err.Error())) {
		s.out.reported = true
	}
	return s.w.Write(p)
}

func (c *checkedOutput) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err != nil {
		c.err = err
	}
	return n, err
}

// exitCode is code, raised to exitFail when a write to stdout failed,
// with a message on stderr unless the command gave one.
func (c *checkedOutput) exitCode(code int, stderr io.Writer) int {
	if c.err == nil {
		return code
	}
	if !c.reported {
		fmt.Fprintln(stderr, "benchtui: writing stdout:", c.err)
	}
	return max(code, exitFail)
}

// stdoutFile is the file under w when w is stdout as run hands it to a
// command: the console and watch --console draw on it.
func stdoutFile(w io.Writer) (*os.File, bool) {
	if c, ok := w.(*checkedOutput); ok {
		w = c.w
	}
	f, ok := w.(*os.File)
	return f, ok
}
