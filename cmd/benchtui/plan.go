package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/target/demo"
)

// defaultPlan is the plan benchtui uses when none is named.
const defaultPlan = "bench.yaml"

// loadPlan reads the plan at path; with no path it takes ./bench.yaml,
// else the built-in demo plan.
func loadPlan(path string) (*runners.Plan, error) {
	if path != "" {
		return runners.LoadPlan(path)
	}
	if _, err := os.Stat(defaultPlan); err == nil {
		return runners.LoadPlan(defaultPlan)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading plan: %w", err)
	}
	return loadDemoPlan()
}

// loadDemoPlan expands the built-in plan for this binary and a free
// loopback port.
func loadDemoPlan() (*runners.Plan, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the benchtui binary for the demo: %w", err)
	}
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	vars := map[string]string{"BENCHTUI": exe, "DEMO_HTTP": addr}
	lookup := func(k string) (string, bool) {
		if v, ok := vars[k]; ok {
			return v, true
		}
		return os.LookupEnv(k)
	}
	return runners.ParsePlan(demo.PlanName, demo.PlanYAML, lookup)
}

// freeLoopbackAddr returns a 127.0.0.1 address whose port was free a
// moment ago.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
