package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/reqlog"
)

// requestsFlags are run's request stream: --requests FILE and its cap.
type requestsFlags struct {
	path     string
	maxBytes int64
}

func (r *requestsFlags) register(fs *flag.FlagSet) {
	r.maxBytes = reqlog.DefaultMaxBytes
	fs.StringVar(&r.path, "requests", "", "write a record per operation to `FILE` (.csv or .json: vegeta's results, read by vegeta report and plot)")
	fs.Var(sizeValue{&r.maxBytes}, "requests-max", "cap the --requests file at `SIZE` (1GiB, 500MB): records beyond it are dropped and counted")
}

// sizeValue is a flag of a size in bytes (1GiB, 500MB, 4096).
type sizeValue struct{ n *int64 }

func (v sizeValue) String() string {
	if v.n == nil {
		return ""
	}
	return reqlog.FormatSize(*v.n)
}

func (v sizeValue) Set(s string) error {
	n, err := reqlog.ParseSize(s)
	if err != nil {
		return err
	}
	*v.n = n
	return nil
}

// check says whether the file's extension names a format.
func (r requestsFlags) check() error {
	if r.path == "" {
		return nil
	}
	return reqlog.Check(r.path)
}

// open starts the stream on run, if asked for, and returns what closes
// it and says on stderr what it wrote; a cap reached is said on stderr
// as it happens.
func (r requestsFlags) open(run *engine.Run, stderr io.Writer) (func(), error) {
	if r.path == "" {
		return func() {}, nil
	}
	if err := artifacts.CheckWritable(filepath.Dir(r.path)); err != nil {
		return nil, fmt.Errorf("--requests: %w", err)
	}
	if err := artifacts.CheckReplaceable(r.path); err != nil {
		return nil, fmt.Errorf("--requests: %w", err)
	}
	s, err := reqlog.Open(r.path, r.maxBytes, func() {
		fmt.Fprintf(stderr, "benchtui run: --requests %s reached its cap of %s: further records are dropped and counted\n",
			plan.Printable(r.path), reqlog.FormatSize(r.maxBytes))
	})
	if err != nil {
		return nil, err
	}
	run.Requests = s
	return func() {
		sum, err := s.Close()
		if err != nil {
			fmt.Fprintln(stderr, "benchtui run:", plan.Printable(err.Error()))
		}
		if sum.Dropped > 0 {
			fmt.Fprintln(stderr, "benchtui run:", plan.Printable(sum.String()))
		}
	}, nil
}
