// Package logcount counts the lines of a growing log file that match named
// patterns, from the moment counting starts until it stops: a target's
// WARN lines during a step's measured phase.
//
// A Counter tails one file: it starts at the file's end (what was written
// before is not counted), polls it, and reads what was added in bounded
// chunks. A line longer than MaxLine is matched on its first MaxLine bytes
// and counted once. A file that shrinks (truncated, or replaced by a
// restarted target's fresh log) is read again from its start. Stop reads
// what is left up to the file's end, so a line written before Stop is
// counted even between polls; a last line without its newline counts too.
package logcount

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"regexp"
	"sync"
	"time"
)

// Bounds of a Counter.
const (
	// MaxLine is the longest line matched whole; the rest of a longer one
	// is skipped.
	MaxLine = 64 << 10
	// chunk is the most one read takes from the file.
	chunk = 256 << 10
	// maxFinal bounds the bytes Stop reads at the end.
	maxFinal = 64 << 20
)

// Poll is how often a Counter looks for new lines.
var Poll = 100 * time.Millisecond

// Counter counts matching lines of one file. Its methods are safe from any
// goroutine.
type Counter struct {
	path     string
	patterns map[string]*regexp.Regexp
	cancel   context.CancelFunc
	done     chan struct{}

	mu      sync.Mutex
	offset  int64
	carry   []byte
	skip    bool // inside a line past MaxLine
	counts  map[string]int64
	long    int64 // lines cut at MaxLine
	lastErr error
	stopped bool
}

// Start starts counting the lines of path added from now on that match
// each pattern. A file that does not exist yet is counted from its start
// once it appears.
func Start(ctx context.Context, path string, patterns map[string]*regexp.Regexp) *Counter {
	ctx, cancel := context.WithCancel(ctx)
	c := &Counter{path: path, patterns: patterns, cancel: cancel, done: make(chan struct{}), counts: map[string]int64{}}
	for name := range patterns {
		c.counts[name] = 0
	}
	if fi, err := os.Stat(path); err == nil {
		c.offset = fi.Size()
	}
	go c.loop(ctx)
	return c
}

func (c *Counter) loop(ctx context.Context) {
	defer close(c.done)
	t := time.NewTicker(Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.read(chunk * 4)
		}
	}
}

// Stop ends the polling, reads what was added up to the file's end (at
// most 64 MiB) and returns the counts by pattern name, the number of lines
// cut at MaxLine, and the last error reading the file (nil if none).
func (c *Counter) Stop() (counts map[string]int64, long int64, err error) {
	c.cancel()
	<-c.done
	c.read(maxFinal)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped {
		c.stopped = true
		if len(c.carry) > 0 && !c.skip {
			c.match(c.carry)
		}
		c.carry = nil
	}
	out := make(map[string]int64, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out, c.long, c.lastErr
}

// read reads at most limit new bytes, chunk by chunk.
func (c *Counter) read(limit int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	f, err := os.Open(c.path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.lastErr = err
		}
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() < c.offset {
		c.offset, c.carry, c.skip = 0, nil, false // truncated or replaced
	}
	buf := make([]byte, chunk)
	for limit > 0 {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), limit)], c.offset)
		c.offset += int64(n)
		limit -= int64(n)
		c.feed(buf[:n])
		if err != nil {
			if err != io.EOF {
				c.lastErr = err
			}
			return
		}
	}
}

// feed splits b into lines, joining the carried start of a line.
func (c *Counter) feed(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			c.hold(b)
			return
		}
		c.hold(b[:i])
		if !c.skip {
			c.match(c.carry)
		}
		c.carry, c.skip = c.carry[:0], false
		b = b[i+1:]
	}
}

// hold adds part of a line to the carry; past MaxLine the line is matched
// on what it has and the rest skipped.
func (c *Counter) hold(b []byte) {
	if c.skip {
		return
	}
	room := MaxLine - len(c.carry)
	if len(b) <= room {
		c.carry = append(c.carry, b...)
		return
	}
	c.carry = append(c.carry, b[:room]...)
	c.match(c.carry)
	c.long++
	c.skip = true
}

func (c *Counter) match(line []byte) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	for name, re := range c.patterns {
		if re.Match(line) {
			c.counts[name]++
		}
	}
}
