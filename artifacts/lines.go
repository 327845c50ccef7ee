package artifacts

import (
	"bufio"
	"io"
)

// ReadLine reads one line of br (with its newline), for readers of logs
// that may hold lines of any length: a line longer than br's buffer is
// read past without being kept (line is nil). n is the bytes consumed. At
// the input's end before a newline, err is io.EOF (or the reader's error)
// and line holds the partial end when it fit.
func ReadLine(br *bufio.Reader) (line []byte, n int64, err error) {
	line, err = br.ReadSlice('\n')
	n = int64(len(line))
	if err != bufio.ErrBufferFull {
		return line, n, err
	}
	for err == bufio.ErrBufferFull {
		var part []byte
		part, err = br.ReadSlice('\n')
		n += int64(len(part))
	}
	if err == nil {
		return nil, n, nil
	}
	if err == bufio.ErrBufferFull {
		err = io.ErrUnexpectedEOF
	}
	return nil, n, err
}
