package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runMain runs the command line args in process, as main does.
func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCmd(t, run, args...)
}

// TestHelpOnEverySubcommand: -h, --help and `help CMD` print the
// subcommand's synopsis on stdout and exit 0, for every subcommand and the
// console; none reads -h as a plan or as an error.
func TestHelpOnEverySubcommand(t *testing.T) {
	t.Parallel()
	for _, c := range subcommands() {
		word := []string{c.name}
		if c.name == consoleName {
			word = []string{"plan.yaml"} // the console has no word: its PLAN
		}
		for _, args := range [][]string{append(word, "-h"), append(word, "--help"), {"help", c.name}} {
			code, stdout, stderr := runMain(t, args...)
			if code != exitOK || !strings.HasPrefix(stdout, "usage: "+c.synopsis+"\n") || stderr != "" {
				t.Errorf("%q: exit %d, stdout:\n%s\nstderr: %s", args, code, stdout, stderr)
			}
		}
	}
	code, stdout, _ := runMain(t, "--help")
	if code != exitOK || !strings.Contains(stdout, "benchtui completion bash|zsh|fish") {
		t.Errorf("--help: exit %d, stdout:\n%s", code, stdout)
	}
	if _, stdout, _ := runMain(t, "run", "-h"); !strings.Contains(stdout, "BENCHTUI_DURATION") || !strings.Contains(stdout, "-format") {
		t.Errorf("run -h lists neither its flags nor its environment:\n%s", stdout)
	}
}

// TestUnknownCommand: a first word that is neither a subcommand nor a
// plan is an unknown command with the nearest subcommand (exit 2), not a
// plan to open; an existing file of any name is still the console's PLAN.
func TestUnknownCommand(t *testing.T) {
	for word, want := range map[string]string{
		"bogus-subcommand": `benchtui: unknown command "bogus-subcommand"` + "\n",
		"rnu":              `unknown command "rnu"; did you mean "run"?`,
		"reprot":           `did you mean "report"?`,
		"valdate":          `did you mean "validate"?`,
	} {
		code, stdout, stderr := runMain(t, word)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, want) || strings.Contains(stderr, "reading plan") {
			t.Errorf("%s: exit %d, stderr %q, want exit 2 with %q", word, code, stderr, want)
		}
	}
	if code, _, stderr := runMain(t, "help", "rnu"); code != exitUsage || !strings.Contains(stderr, `did you mean "run"?`) {
		t.Errorf("help rnu: exit %d, stderr %q", code, stderr)
	}
	t.Chdir(t.TempDir())
	if err := os.WriteFile("bogus", []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// stdout is no terminal here: the console refuses, having taken the word as its PLAN.
	if code, _, stderr := runMain(t, "bogus"); code != exitUsage || strings.Contains(stderr, "unknown command") {
		t.Errorf("an existing file: exit %d, stderr %q, want it taken as the PLAN", code, stderr)
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	for word, want := range map[string]string{"rn": "run", "comapre": "compare", "demo": "demo-target",
		"comp": "", "x": "", "version": "version", "zzzzzz": ""} {
		if got := suggest(word); got != want {
			t.Errorf("suggest(%q) = %q, want %q", word, got, want)
		}
	}
}

// TestEnvHelpOnlyWhereTheVariablesApply: the help of run, bisect and the
// console lists BENCHTUI_ARTIFACTS (it sets their -o); report's, merge's
// and kube's do not, though they have an -o too.
func TestEnvHelpOnlyWhereTheVariablesApply(t *testing.T) {
	for _, args := range [][]string{{"run", "-h"}, {"bisect", "-h"}, {"help", "console"}, {"report", "-h"}, {"merge", "-h"}, {"kube", "-h"}} {
		_, stdout, stderr := runMain(t, args...)
		lists := strings.Contains(stdout+stderr, "BENCHTUI_ARTIFACTS")
		if want := args[0] == "help" || args[0] == "run" || args[0] == "bisect"; lists != want {
			t.Errorf("%v: lists BENCHTUI_ARTIFACTS %v, want %v:\n%s%s", args, lists, want, stdout, stderr)
		}
	}
}

// TestEnvDefaults: BENCHTUI_ARTIFACTS and BENCHTUI_DURATION set the
// defaults of -o and --duration of run and the console; flags win; a bad
// value is an error naming the variable.
func TestEnvDefaults(t *testing.T) {
	t.Setenv("BENCHTUI_ARTIFACTS", filepath.FromSlash("/env/dir"))
	t.Setenv("BENCHTUI_DURATION", "2s")
	f, err := parseRunFlags([]string{"plan.yaml"}, &strings.Builder{})
	if err != nil || f.out != filepath.FromSlash("/env/dir") || f.duration != 2*time.Second {
		t.Errorf("run from the environment: %+v, %v", f, err)
	}
	f, err = parseRunFlags([]string{"-o", "flag", "plan.yaml", "--duration", "3s"}, &strings.Builder{})
	if err != nil || f.out != "flag" || f.duration != 3*time.Second {
		t.Errorf("flags must win over the environment: %+v, %v", f, err)
	}
	c, err := parseConsoleFlags(nil, &strings.Builder{})
	if err != nil || c.out != filepath.FromSlash("/env/dir") || c.duration != 2*time.Second {
		t.Errorf("console from the environment: %+v, %v", c, err)
	}
	t.Setenv("BENCHTUI_DURATION", "soon")
	code, _, stderr := runCmd(t, cmdRun, "plan.yaml")
	if code != exitUsage || !strings.Contains(stderr, `BENCHTUI_DURATION="soon"`) {
		t.Errorf("bad BENCHTUI_DURATION: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runMain(t, "plan.yaml", "--duration", "1s"); code != exitUsage || strings.Contains(stderr, "BENCHTUI") {
		t.Errorf("a flag must win over a bad variable too: exit %d, stderr %q", code, stderr)
	}
}
