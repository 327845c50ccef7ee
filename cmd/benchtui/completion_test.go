package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// completionScript writes the script `benchtui completion shell` prints
// to a file in a folder that also holds a plan, an artifact, another file
// and a folder, runs.
func completionScript(t *testing.T, shell string) (script, dir string) {
	t.Helper()
	code, stdout, stderr := runMain(t, "completion", shell)
	if code != exitOK || stderr != "" {
		t.Fatalf("completion %s: exit %d, stderr %s", shell, code, stderr)
	}
	dir = t.TempDir()
	for _, name := range []string{"bench.yaml", "G5-1.json", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	script = filepath.Join(dir, "benchtui."+shell)
	if err := os.WriteFile(script, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return script, dir
}

// shellOrSkip is the path of shell, or skips t when it is not installed.
func shellOrSkip(t *testing.T, shell string) string {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed: its completion script is not checked", shell)
	}
	return path
}

// TestBashCompletion: the script parses (bash -n) and its function
// completes subcommands, flags, --format values, plan files and folders
// for PLAN and merge --plan, artifacts and folders for compare and
// report, folders only for run -o, any file for report -o.
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	bash := shellOrSkip(t, "bash")
	script, dir := completionScript(t, "bash")
	if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	// complete LINE: the words of LINE, the last (maybe empty) completed.
	driver := `source "$1"
complete_line() {
	read -ra COMP_WORDS <<<"$1"
	[[ $1 == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_benchtui
	echo "$1=>${COMPREPLY[*]}"
}
complete_line "benchtui r"
complete_line "benchtui run --f"
complete_line "benchtui run --format "
complete_line "benchtui run "
complete_line "benchtui compare "
complete_line "benchtui completion "
complete_line "benchtui help d"
complete_line "benchtui -o out r"
complete_line "benchtui run -o "
complete_line "benchtui merge --plan "
complete_line "benchtui report -o n"
complete_line "benchtui report "
complete_line "benchtui run --ex"
complete_line "benchtui run --junit n"
complete_line "benchtui report --format "
complete_line "benchtui import "
complete_line "benchtui import har n"
complete_line "benchtui import curl "
complete_line "benchtui import -o n"
complete_line "benchtui run --requests n"
complete_line "benchtui run --requests-"
`
	cmd := exec.Command(bash, "-c", driver, "bash", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	// "runs" is a folder on the way to the console's PLAN.
	want := "benchtui r=>run report runs\n" +
		"benchtui run --f=>--fail-on-leak --format\n" +
		"benchtui run --format =>text json csv\n" +
		"benchtui run =>runs bench.yaml\n" +
		"benchtui compare =>runs G5-1.json\n" +
		"benchtui completion =>bash zsh fish\n" +
		"benchtui help d=>doctor demo-target\n" +
		"benchtui -o out r=>run report runs\n" +
		"benchtui run -o =>runs\n" +
		"benchtui merge --plan =>runs bench.yaml\n" +
		"benchtui report -o n=>notes.txt\n" +
		"benchtui report =>runs G5-1.json\n" +
		"benchtui run --ex=>--export-csv --export-json --export-markdown\n" +
		"benchtui run --junit n=>notes.txt\n" +
		"benchtui report --format =>markdown html benchstat\n" +
		"benchtui import =>har curl vegeta\n" +
		"benchtui import har n=>notes.txt\n" +
		"benchtui import curl =>\n" +
		"benchtui import -o n=>notes.txt\n" +
		"benchtui run --requests n=>notes.txt\n" +
		"benchtui run --requests-=>--requests-max\n"
	if string(out) != want {
		t.Errorf("completions:\n%s\nwant:\n%s", out, want)
	}
}

// TestZshCompletion: the script parses and registers its function with
// compdef (zsh runs the bash script through bashcompinit).
func TestZshCompletion(t *testing.T) {
	t.Parallel()
	zsh := shellOrSkip(t, "zsh")
	script, dir := completionScript(t, "zsh")
	cmd := exec.Command(zsh, "-f", "-c", `zsh -n "$1" && source "$1" && print -r -- "${_comps[benchtui]}"`, "zsh", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "_benchtui") {
		t.Errorf("zsh: %v\n%s", err, out)
	}
}

// TestFishCompletion: fish completes the command lines with the script
// loaded (complete -C): subcommands, --format values, and paths by kind:
// artifacts and folders after report (not every file), folders after
// run -o, plan files after run and merge --plan.
func TestFishCompletion(t *testing.T) {
	t.Parallel()
	fish := shellOrSkip(t, "fish")
	script, dir := completionScript(t, "fish")
	home := t.TempDir() // fish makes its folders there, not among the paths completed
	for line, want := range map[string][]string{
		"benchtui r":                {"report", "run", "runs/"},
		"benchtui run --format ":    {"csv", "json", "text"},
		"benchtui report ":          {"G5-1.json", "runs/"},
		"benchtui compare ":         {"G5-1.json", "runs/"},
		"benchtui run ":             {"bench.yaml", "runs/"},
		"benchtui merge --plan ":    {"bench.yaml", "runs/"},
		"benchtui run -o ":          {"runs/"},
		"benchtui report -o note":   {"notes.txt"},
		"benchtui report --format ": {"benchstat", "html", "markdown"},
		"benchtui run --export-j":   {"--export-json"},
		"benchtui import ":          {"curl", "har", "vegeta"},
		"benchtui import har note":  {"notes.txt"},
		"benchtui run --requests n": {"notes.txt"},
		"benchtui run --requests-":  {"--requests-max"},
	} {
		cmd := exec.Command(fish, "--no-config", "-c", `source $argv[1]; and complete -C $argv[2]`, script, line)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home)
		out, err := cmd.CombinedOutput()
		if got := fishWords(out); err != nil || !slices.Equal(got, want) {
			t.Errorf("fish: %q completes to %q (%v), want %q", line, got, err, want)
		}
	}
}

// fishWords are the completions complete -C printed, without their
// descriptions, sorted and without duplicates.
func fishWords(out []byte) []string {
	var words []string
	for l := range strings.Lines(string(out)) {
		if w, _, _ := strings.Cut(strings.TrimRight(l, "\n"), "\t"); w != "" {
			words = append(words, w)
		}
	}
	slices.Sort(words)
	return slices.Compact(words)
}
