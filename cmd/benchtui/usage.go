package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
)

// argKind says what a subcommand's positional arguments are, for the
// shell completions.
type argKind string

const (
	argsNone      argKind = "none"
	argsPlan      argKind = "plan"      // a plan file (*.yaml, *.yml)
	argsArtifacts argKind = "artifacts" // artifact files (*.json) or folders
	argsShells    argKind = "shells"    // bash, zsh, fish
	argsCommands  argKind = "commands"  // a subcommand name
	argsImport    argKind = "imports"   // har|curl|vegeta, then a file
)

// subcommand is one word of the command line: what it runs, its synopsis
// and one-line summary for -h and `help`, its flags (for the help and the
// completions) and what its arguments are.
type subcommand struct {
	name     string
	run      command
	synopsis string
	about    string
	flags    func() *flag.FlagSet // nil: no flags
	args     argKind
	formats  []string // the values of its --format, if it has one
}

// consoleName is the help topic of the console, which has no word of its
// own: `benchtui [PLAN]`.
const consoleName = "console"

// subcommands lists every subcommand in the order the usage shows them;
// the console comes first.
func subcommands() []subcommand {
	return []subcommand{
		{consoleName, cmdConsole, "benchtui [PLAN] [-o DIR] [--duration D] [--metrics-addr ADDR] [--watch PATH]",
			"interactive console; PLAN defaults to ./bench.yaml, else the built-in demo plan",
			func() *flag.FlagSet { return consoleFlagSet(&consoleFlags{}) }, argsPlan, nil},
		{"run", cmdRun, "benchtui run [PLAN] [-g ID,...] [-o DIR] [--baseline FILE|DIR] [--duration D] [--count N] [--format text|json|csv] [--fail-on-leak]\n             [--export-json FILE] [--export-csv FILE] [--export-markdown FILE] [--junit FILE]\n             [--requests FILE.csv|FILE.json] [--requests-max SIZE]\n             [--metrics-addr ADDR] [--shard I/N --run-id ID --start-at T [--start-tolerance D]]",
			"headless: progress on stderr; summary, artifacts; exit 1 if a threshold\nor a significant regression fails, 2 on a usage or plan error",
			func() *flag.FlagSet { return runFlagSet(&runFlags{}) }, argsPlan, runFormats},
		{"compare", cmdCompare, "benchtui compare BASE CURRENT [--format text|markdown|json] [--threshold 5%] [--pair A=B]",
			"judge each figure of CURRENT against BASE (artifact files or folders), or group B against group A\n(--pair A=B BASE [CURRENT]: two arms of one run); exit 1 if any got worse",
			func() *flag.FlagSet { return compareFlagSet(&compare.CompareOptions{}, new(string), new(pairFlag)) }, argsArtifacts, compareFormats},
		{"bisect", cmdBisect, "benchtui bisect PLAN -g ID --good REV --bad REV [--count N] [--figure p50|p99|rss_slope|...|any] [-o DIR] [--console]",
			"find the first commit after --good whose group is judged worse than --good's: binary search, each probe\na git worktree, the targets' build and N runs; exit 1 if none is worse",
			func() *flag.FlagSet { return bisectFlagSet(&bisectFlags{}) }, argsPlan, nil},
		{"report", cmdReport, "benchtui report ARTIFACT...|DIR [--format markdown|html|benchstat] [--percentiles] [-o FILE|DIR]",
			"a markdown or self-contained HTML report of the artifacts, each step's percentile distribution,\nor compare's samples in the Go benchmark format (benchstat old.txt new.txt)",
			func() *flag.FlagSet { return reportFlagSet(&reportOptions{}) }, argsArtifacts, reportFormats},
		{"merge", cmdMerge, "benchtui merge IN...|k8s:NS/JOB [-o DIR] [--allow-partial] [--plan PLAN]",
			"join the artifacts of a distributed run's shards into one per group, judged again on the merged figures",
			func() *flag.FlagSet { return mergeFlagSet(&mergeFlags{}) }, argsArtifacts, nil},
		{"kube", cmdKube, "benchtui kube manifest|run PLAN -g ID --shards N --image IMG [--namespace NS] [--start-in D] [--start-tolerance D] [-o DIR]",
			"a group on N pods: print its ConfigMap and Indexed Job, or apply them with kubectl, wait, and merge the shards into one artifact",
			func() *flag.FlagSet { return kubeFlagSet(&kubeFlags{}) }, argsPlan, nil},
		{"watch", cmdWatch, "benchtui watch k8s:NS/JOB|DIR [--stale 5s] [--once]",
			"follow a distributed run's shards live: merged figures and each shard's lag, once a second",
			func() *flag.FlagSet { return watchFlagSet(&watchFlags{}) }, argsNone, nil},
		{"import", cmdImport, "benchtui import har FILE | curl 'curl …' | vegeta TARGETS [-o FILE]",
			"a plan of the requests of a HAR file, a curl command line (\"Copy as cURL\") or vegeta's targets;\nsecrets become ${VARS} it lists, never written",
			func() *flag.FlagSet { return importFlagSet(new(string)) }, argsImport, nil},
		{"validate", cmdValidate, "benchtui validate PLAN", "check a plan and print every problem with its place", nil, argsPlan, nil},
		{"doctor", cmdDoctor, "benchtui doctor [PLAN]", "fd, port, conntrack and memory limits, UDP buffers, targets, Postgres, Redis", nil, argsPlan, nil},
		{"demo-target", cmdDemoTarget, "benchtui demo-target [--http ADDR] [--quic ADDR] [--h3 ADDR] [--grpc ADDR] [--drain D] [--fault NAME,…]",
			"the built-in demo servers, as a separate process",
			func() *flag.FlagSet { return demoFlagSet(&demoFlags{}) }, argsNone, nil},
		{"version", cmdVersion, "benchtui version", "the version and the VCS revision it was built from", nil, argsNone, nil},
		{"completion", cmdCompletion, "benchtui completion bash|zsh|fish",
			"a shell completion script: source <(benchtui completion bash)", nil, argsShells, nil},
		{"help", cmdHelp, "benchtui help [COMMAND]", "this usage, or a command's flags", nil, argsCommands, nil},
	}
}

// lookupCommand finds a subcommand by its word; the console has none.
func lookupCommand(name string) (subcommand, bool) {
	for _, c := range subcommands() {
		if c.name == name && c.name != consoleName {
			return c, true
		}
	}
	return subcommand{}, false
}

// flagSet is a subcommand's flag set: it reports errors instead of
// exiting, and prints the synopsis (not every flag: -h does that) after a
// parse error. Its output is discarded until the command sets it.
func flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		if c, ok := helpTopic(name); ok {
			fmt.Fprintf(fs.Output(), "usage: %s\n(benchtui help %s: every flag)\n", c.synopsis, c.name)
		}
	}
	return fs
}

// helpTopic finds a subcommand, the console included, by name.
func helpTopic(name string) (subcommand, bool) {
	for _, c := range subcommands() {
		if c.name == name || (name == "benchtui" && c.name == consoleName) {
			return c, true
		}
	}
	return subcommand{}, false
}

// wantsHelp reports whether args ask for help: -h, -help or --help before
// a "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// printHelp writes a subcommand's synopsis, summary, flags and the
// environment variables it reads.
func printHelp(w io.Writer, c subcommand) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.synopsis, c.about)
	if c.flags != nil {
		fmt.Fprintln(w, "\nflags:")
		fs := c.flags()
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	if env := envHelp(c); env != "" {
		fmt.Fprint(w, "\nenvironment (a flag on the command line wins):\n", env)
	}
}

// printUsage writes the root usage: every subcommand's synopsis.
func printUsage(w io.Writer) {
	fmt.Fprint(w, "benchtui — load, soak and regression benchmarks in a terminal console\n\nusage:\n")
	for _, c := range subcommands() {
		fmt.Fprintf(w, "  %s\n", c.synopsis)
		for _, l := range strings.Split(c.about, "\n") {
			fmt.Fprintf(w, "      %s\n", l)
		}
	}
	fmt.Fprint(w, "\nbenchtui help COMMAND (or COMMAND -h) shows a command's flags.\n",
		"Exit codes: 0 all passed, 1 a check or comparison failed, 2 usage or plan error.\n")
}

// cmdHelp prints the root usage, or with a COMMAND that command's help.
func cmdHelp(_ context.Context, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		printUsage(stdout)
		return exitOK
	case len(args) > 1:
		fmt.Fprintln(stderr, "usage: benchtui help [COMMAND]")
		return exitUsage
	}
	c, ok := helpTopic(args[0])
	if !ok {
		return unknownCommand(args[0], stderr)
	}
	printHelp(stdout, c)
	return exitOK
}

// isPlanArg tells a first word that names a plan (the console's PLAN) from
// a mistyped subcommand: an existing file or folder, or a word that looks
// like a path or a plan file, so that a missing plan still says "reading
// plan: …" rather than "unknown command".
func isPlanArg(word string) bool {
	if strings.HasPrefix(word, "-") {
		return true // a flag of the console
	}
	if _, err := os.Stat(word); err == nil {
		return true
	}
	switch strings.ToLower(filepath.Ext(word)) {
	case ".yaml", ".yml":
		return true
	}
	return strings.ContainsAny(word, `/\`)
}

// unknownCommand reports a word that is neither a subcommand nor a plan,
// with the nearest subcommand when one is close, and returns exitUsage.
func unknownCommand(word string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "benchtui: unknown command %q", word)
	if s := suggest(word); s != "" {
		fmt.Fprintf(stderr, "; did you mean %q?", s)
	}
	fmt.Fprintln(stderr, "\nrun 'benchtui help' for usage")
	return exitUsage
}

// suggest is the subcommand nearest to word by edit distance when it is
// close enough to be a typo (at most 2 edits, fewer than the word's
// length), else the only one that word begins, else "".
func suggest(word string) string {
	word = strings.ToLower(word)
	best, bestD := "", 3
	var prefixed []string
	for _, c := range subcommands() {
		if c.name == consoleName {
			continue
		}
		if d := artifacts.EditDistance(word, c.name); d < bestD && d < len(word) {
			best, bestD = c.name, d
		}
		if strings.HasPrefix(c.name, word) {
			prefixed = append(prefixed, c.name)
		}
	}
	if best == "" && len(prefixed) == 1 {
		return prefixed[0]
	}
	return best
}
