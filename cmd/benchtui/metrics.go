package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/livemetrics"
)

// metricsFlags are the live-metrics options of run and the console.
type metricsFlags struct {
	addr   string
	remote bool
}

// define adds --metrics-addr and --metrics-remote to fs.
func (m *metricsFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&m.addr, "metrics-addr", "", "serve the running session's figures in Prometheus format on `ADDR`/metrics (e.g. 127.0.0.1:9464)")
	fs.BoolVar(&m.remote, "metrics-remote", false, "allow a --metrics-addr that is not on loopback (the endpoint has no authentication)")
}

// check refuses an address the server would refuse, before anything runs.
func (m metricsFlags) check() error {
	if m.addr == "" {
		return nil
	}
	return livemetrics.CheckAddr(m.addr, m.remote)
}

// start serves run's figures on the address when one was given, with the
// exporter observing every session of run, and says where on announce.
// stop ends serving (a no-op without an address).
func (m metricsFlags) start(run *engine.Run, announce io.Writer) (stop func(), err error) {
	if m.addr == "" {
		return func() {}, nil
	}
	exp := livemetrics.New(livemetrics.Build{Version: run.ToolVersion, Revision: run.VCSRevision})
	srv, err := livemetrics.Serve(m.addr, m.remote, exp)
	if err != nil {
		return nil, err
	}
	run.Observer = exp
	fmt.Fprintf(announce, "benchtui: metrics at %s\n", srv.URL())
	return func() { srv.Close() }, nil
}
