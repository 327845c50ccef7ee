package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"

	"github.com/benchtui/benchtui/runners/demo"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/plan"
)

// defaultPlan is the plan benchtui uses when none is named.
const defaultPlan = "bench.yaml"

// loadPlan reads the plan at path; with no path it takes ./bench.yaml,
// else the built-in demo plan.
func loadPlan(path string) (*plan.Plan, error) {
	if path != "" {
		return plan.LoadPlan(path, kinds)
	}
	if _, err := os.Stat(defaultPlan); err == nil {
		return plan.LoadPlan(defaultPlan, kinds)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading plan: %w", err)
	}
	return loadDemoPlan()
}

// remoteWarnings are the plan's warnings about load sent to addresses that
// are neither loopback nor private.
func remoteWarnings(pl *plan.Plan) []string {
	return pl.RemoteWarnings(net.DefaultResolver.LookupNetIP)
}

// printWarnings writes each warning on its own line.
func printWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintln(w, "benchtui: warning:", s)
	}
}

// loadDemoPlan expands the built-in plan for this binary and a free
// loopback port.
func loadDemoPlan() (*plan.Plan, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the benchtui binary for the demo: %w", err)
	}
	vars := map[string]string{"BENCHTUI": exe}
	for name, network := range map[string]string{"DEMO_HTTP": "tcp", "DEMO_QUIC": "udp", "DEMO_H3": "udp", "DEMO_GRPC": "tcp"} {
		if vars[name], err = freeLoopbackAddr(network); err != nil {
			return nil, err
		}
	}
	lookup := func(k string) (string, bool) {
		if v, ok := vars[k]; ok {
			return v, true
		}
		return os.LookupEnv(k)
	}
	src := demo.PlanYAML
	if _, err := pgload.FindBinDir(""); err == nil {
		src = append(append([]byte{}, src...), demo.PostgresGroupsYAML...)
	}
	return plan.ParsePlan(demo.PlanName, src, lookup, kinds)
}

// freeLoopbackAddr returns a 127.0.0.1 address whose port was free a
// moment ago, for network "tcp" or "udp".
func freeLoopbackAddr(network string) (string, error) {
	if network == "udp" {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return "", fmt.Errorf("finding a free loopback UDP port: %w", err)
		}
		defer pc.Close()
		return pc.LocalAddr().String(), nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
