// Command benchtui is an interactive terminal console for load, soak and
// regression benchmarks of server software, and the same engine headless
// for CI. See README.md for the commands.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// Exit codes: 0 all passed, 1 a check or comparison failed, 2 usage or
// plan error, 3 a shard that missed its start (exitMissedStart).
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

type command func(ctx context.Context, args []string, stdout, stderr io.Writer) int

func commands() map[string]command {
	return map[string]command{
		"run":         cmdRun,
		"compare":     cmdCompare,
		"report":      cmdReport,
		"merge":       cmdMerge,
		"validate":    cmdValidate,
		"doctor":      cmdDoctor,
		"demo-target": cmdDemoTarget,
		"help":        cmdHelp,
	}
}

func main() {
	stop := startProfile(os.Getenv("BENCHTUI_CPUPROFILE"))
	os.Unsetenv("BENCHTUI_CPUPROFILE") // not for the demo servers and targets it starts
	quietQUIC()
	code := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// startProfile writes a CPU profile to path (BENCHTUI_CPUPROFILE), for
// looking into the generator's own cost.
func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtui: cpu profile:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "benchtui: cpu profile:", err)
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// run dispatches to a subcommand; with none (or a plan path) it opens the
// console.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if c, ok := commands()[args[0]]; ok {
			return c(ctx, args[1:], stdout, stderr)
		}
		switch args[0] {
		case "-h", "--help":
			return cmdHelp(ctx, nil, stdout, stderr)
		case "-v", "--version", "version":
			ver, rev := buildInfo()
			fmt.Fprintln(stdout, "benchtui", ver, rev)
			return exitOK
		}
	}
	return cmdConsole(ctx, args, stdout, stderr)
}

const usage = `benchtui — load, soak and regression benchmarks in a terminal console

usage:
  benchtui [PLAN] [-o DIR] [--duration D]
                                  interactive console; PLAN defaults to ./bench.yaml, else the built-in demo
  benchtui run [PLAN] [-g ID,...] [-o DIR] [--baseline FILE|DIR] [--duration D] [--count N]
                                  headless: progress, summary table, artifacts; exit 1 if a threshold
                                  or a significant regression fails, 2 on a usage or plan error
  benchtui run PLAN --shard I/N --run-id ID --start-at T [-g ID,...] [-o DIR]
                                  one shard of a run on several machines; exit 3 if not ready by T
  benchtui merge IN... [-o DIR] [--allow-partial]
                                  join the shards' artifacts exactly; exit 1 if a threshold fails
  benchtui compare BASE CURRENT [--format text|markdown|json] [--threshold 5%]
  benchtui report ARTIFACT...|DIR [--format markdown|html] [-o FILE]
  benchtui validate PLAN
  benchtui doctor [PLAN]          fd limits, UDP buffers, target commands, Postgres availability
  benchtui demo-target            the built-in demo servers, as a separate process
  benchtui version                the version and the VCS revision it was built from
`

func cmdHelp(_ context.Context, _ []string, stdout, _ io.Writer) int {
	fmt.Fprint(stdout, usage)
	return exitOK
}
