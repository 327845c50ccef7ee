package planimport

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// ReadInput reads a file of at most MaxInputBytes; "-" is stdin.
func ReadInput(path string, stdin io.Reader) ([]byte, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxInputBytes {
			return nil, tooLarge(path)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	if len(data) > MaxInputBytes {
		return nil, tooLarge(path)
	}
	return data, nil
}

func tooLarge(path string) error {
	return &Error{File: path, Msg: fmt.Sprintf("larger than %d MiB: not imported", MaxInputBytes>>20)}
}

// lineAt is the 1-based line of data's byte offset.
func lineAt(data []byte, offset int64) int {
	offset = min(max(offset, 0), int64(len(data)))
	return bytes.Count(data[:offset], []byte{'\n'}) + 1
}
